export { assertCategoryExists } from './category-repository.js';
export { categoryRoutes } from './category-routes.js';
export { deleteUnlessBooked, type Removal } from './in-use.js';
export { default as catalogRoutes } from './routes.js';
export { findCategoryByName, insertCategory } from './category-repository.js';
export { findServiceByName, insertService } from './repository.js';
