import { formatId } from '../../core/ids.ts';
import type { SideContact } from './merge-suggestion.repository.ts';
import type { MergeSuggestion } from './merge-suggestion.service.ts';

function contact(side: SideContact) {
  return {
    id: formatId('contact', side.id),
    name: side.name,
    fullName: side.fullName,
    username: side.username,
    primaryEmail: side.primaryEmail,
    avatarUrl: side.avatarUrl,
    title: side.title,
    city: side.city,
    country: side.country,
    organization:
      side.organizationId === null
        ? null
        : { id: formatId('organization', side.organizationId), name: side.organizationName ?? '', domain: side.organizationDomain ?? '' },
    identities: side.identities,
    createdAt: side.createdAt.toISOString(),
  };
}

/** A suggestion as the v2 family shows it. */
export function v2MergeSuggestion(suggestion: MergeSuggestion) {
  return {
    id: formatId('merge_suggestion', suggestion.id),
    score: suggestion.score,
    reasons: suggestion.reasons,
    status: suggestion.status,
    contacts: suggestion.contacts.map(contact),
    computedAt: suggestion.computedAt.toISOString(),
    dismissedAt: suggestion.dismissedAt?.toISOString() ?? null,
    dismissedBy: suggestion.dismissedBy,
  };
}
