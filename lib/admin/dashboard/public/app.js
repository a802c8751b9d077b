// @ts-check
/** The dashboard's shell: who signed in, the pages by the hash of the URL (#/keys), sign-out. */
import { signOut, whoami } from './api.js';
import { h, notice } from './dom.js';
import { setCurrency } from './format.js';
import { messageOf } from './ui.js';
import * as overview from './pages/overview.js';
import * as accounts from './pages/accounts.js';
import * as keys from './pages/keys.js';
import * as requests from './pages/requests.js';
import * as reviews from './pages/reviews.js';
import * as models from './pages/models.js';
import * as audit from './pages/audit.js';

/** @typedef {{ title: string, render: (view: HTMLElement, ctx: import('./ui.js').Ctx) => Promise<void> }} Page */

/** Every page, in the order of the menu. @type {[string, Page][]} */
const PAGES = [['overview', overview], ['accounts', accounts], ['keys', keys], ['requests', requests], ['reviews', reviews], ['models', models], ['audit', audit]];

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
let shown = 0;
/** Tells this document's renders from another's: `data-turn` on <main> names each render, so a test can wait for a new one. */
const LOAD = Math.random().toString(36).slice(2, 8);

/** @param {{ name: string, access: 'read' | 'write' }} me */
async function show(me) {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [first, param] = path.split('/').map(decodeURIComponent);
  const [name, page] = PAGES.find(([n]) => n === first) ?? PAGES[0];
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.page === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${page.title} · model-gateway`;
  const turn = ++shown;
  const view = h('section', { class: 'view', 'aria-labelledby': 'view-title' }, h('h1', { id: 'view-title' }, page.title));
  /** @type {import('./ui.js').Ctx} */
  const ctx = {
    param, query: new URLSearchParams(search), me, canWrite: me.access === 'write',
    go: (hash) => { location.hash = hash; },
    refresh: () => void show(me),
  };
  try {
    await page.render(view, ctx);
  } catch (err) {
    view.append(notice('error', messageOf(err)));
  }
  if (turn !== shown) return; // another view was asked for meanwhile
  main.replaceChildren(view);
  main.dataset.view = name;
  main.dataset.turn = `${LOAD}-${turn}`;
}

async function start() {
  const me = await whoami();
  setCurrency(me.currency);
  nav.replaceChildren(...PAGES.map(([name, page]) => h('a', { href: `#/${name}`, 'data-page': name }, page.title)));
  /** @type {HTMLElement} */ (document.getElementById('who')).textContent = `${me.name} (${me.access})`;
  /** @type {HTMLElement} */ (document.getElementById('sign-out')).addEventListener('click', () => void signOut());
  window.addEventListener('hashchange', () => {
    void show(me).then(() => main.focus({ preventScroll: true }));
  });
  await show(me);
}

start().catch((err) => main.replaceChildren(notice('error', messageOf(err))));
