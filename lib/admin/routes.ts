/** The admin API's one table of routes: each file's rows, in the order the OpenAPI document lists them. */
import { accountRoutes } from './accounts';
import { budgetRoutes } from './budgets';
import { keyRoutes } from './keys';
import { modelRoutes } from './models';
import { recordRoutes } from './records';
import { reviewRoutes } from './reviews';
import { statsRoutes } from './stats';
import type { AdminRoute } from './table';

export const ADMIN_ROUTES: readonly AdminRoute[] = [...keyRoutes, ...accountRoutes, ...budgetRoutes, ...reviewRoutes, ...recordRoutes, ...modelRoutes, ...statsRoutes];
