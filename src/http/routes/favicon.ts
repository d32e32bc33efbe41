import { Hono } from 'hono';
import type { AppEnv } from '../env.js';

/** The icon the service's pages name (and browsers ask for by convention): a browser that gets none logs a 404. */
export const FAVICON_PATH = '/favicon.ico';

/** An SVG (every current browser takes one as an icon, whatever the path's extension): a ledger's ruled page. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="4" y="2" width="24" height="28" rx="3" fill="#1f4e79"/>
<rect x="8" y="7" width="16" height="2" fill="#fff"/>
<rect x="8" y="12" width="16" height="2" fill="#fff"/>
<rect x="8" y="17" width="16" height="2" fill="#fff"/>
<rect x="8" y="22" width="10" height="2" fill="#7fb3e0"/>
</svg>
`;

/** GET /favicon.ico: no token, like the pages that show it. */
export function faviconRoutes() {
  return new Hono<AppEnv>().get(FAVICON_PATH, (c) =>
    c.body(FAVICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }),
  );
}
