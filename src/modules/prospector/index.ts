// The face of the prospector module: what the rest of the code uses of it. Its other files are private.
export { PROSPECTOR_COMPANY_FILTERS } from './prospector-company.filters.ts';
export { PROSPECTOR_CONTACT_FILTERS } from './prospector-contact.filters.ts';
