// The face of the console module: the web console's pages and assets (docs/console.md).
export { CONSOLE_DIST, CONSOLE_PAGES, consoleRoutes } from './console.routes.ts';
