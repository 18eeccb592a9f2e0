/**
 * silo-console: Silo's web console. `consoleMiddleware()` serves the built single-page app at
 * /console with a strict Content-Security-Policy; the console API (/console/api/*) and the
 * management API it calls are the server's.
 *
 *   app.use(consoleMiddleware());            // beside silo.middleware() and the console API
 */
export { consoleMiddleware, type ConsoleOptions } from './middleware.js';
export { CONTENT_SECURITY_POLICY, contentSecurityPolicy, SECURITY_HEADERS } from './headers.js';
