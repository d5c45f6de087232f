// The face of the tech products module: what the rest of the code uses of it. Its other files are private.
export { techProductRoutes } from './tech-product.v2.routes.ts';
export { createTechProductService, type TechProductService } from './tech-product.service.ts';
export { techProductTx, type TechProductTxService } from './tech-product-tx.service.ts';
