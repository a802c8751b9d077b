/** The dashboard's two HTML documents: the page the browser code fills, and the sign-in form (no script). */

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

const head = (title: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · model-gateway</title>
<link rel="stylesheet" href="assets/style.css">
<link rel="icon" href="assets/icon.svg">`;

/** The dashboard's page; assets/app.js builds every view in it from the admin API. */
export const SHELL_HTML = `${head('Dashboard')}
<script type="module" src="assets/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<span class="brand">model-gateway</span>
<nav id="nav" aria-label="Pages"></nav>
<span id="who" class="who"></span>
<button id="sign-out" type="button" class="quiet">Sign out</button>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
</body>
</html>
`;

/** The sign-in form; `message` (escaped) says why the last attempt failed. It posts the token in the body, never in the URL. */
export function signInHtml(message?: string): string {
  return `${head('Sign in')}
</head>
<body class="signin">
<main>
<h1>model-gateway</h1>
<form method="post" action="sign-in" class="card">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
${message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : ''}
<button type="submit">Sign in</button>
</form>
<p class="muted">Use a token from the gateway's admin configuration. A read token can look, not change.</p>
</main>
</body>
</html>
`;
}
