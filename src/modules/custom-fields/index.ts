// The face of the custom-fields module: what the rest of the code uses of it. Its other files are private.
export { contactCustomFieldRoutes } from './contact-custom-fields.core.routes.ts';
export { createContactCustomFieldService } from './contact-custom-fields.service.ts';
export { customFieldAdminRoutes } from './custom-field-admin.v2.routes.ts';
export { createCustomFieldAdminService, type CustomFieldChanges, type NewCustomField, parseCustomFieldId } from './custom-field-admin.service.ts';
export { customFieldDefinitionRoutes } from './custom-field-definitions.v2.routes.ts';
export { createCustomFieldDefinitionService } from './custom-field-definitions.service.ts';
export { checkCustomFieldValue } from './custom-field-values.ts';
export { type CustomFieldDefinitions, customFieldFamily } from './custom-field.filters.ts';
export { type CustomFieldDefinition, type CustomFieldEntity } from './custom-field.repository.ts';
export { CustomFieldValues } from './custom-field.schemas.ts';
export { customFieldTx, type CustomFieldTxService } from './custom-field-tx.service.ts';
