import { formatId } from '../../core/ids.ts';
import type { ContactHit, OrganizationHit, SegmentHit } from './search.repository.ts';
import type { SearchResults } from './search.service.ts';

const contact = (hit: ContactHit) => ({
  id: formatId('contact', hit.id),
  name: hit.name,
  avatarUrl: hit.avatarUrl,
  matched: { field: hit.field, value: hit.value, ...(hit.platform === null ? {} : { platform: hit.platform }) },
});

const organization = (hit: OrganizationHit) => ({
  id: formatId('organization', hit.id),
  name: hit.name,
  domain: hit.domain,
  matched: { field: hit.field, value: hit.value },
});

const segment = (hit: SegmentHit) => ({ id: formatId('segment', hit.id), name: hit.name, entityType: hit.entityType });

export function v2SearchResults(results: SearchResults) {
  return {
    contacts: results.contacts.map(contact),
    organizations: results.organizations.map(organization),
    segments: results.segments.map(segment),
  };
}
