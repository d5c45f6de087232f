/**
 * Domains: the registrable domain an organization is keyed by, and whether a mail domain is personal
 * (a free or disposable provider) and so never makes an organization (docs/behaviour.md, Ingestion).
 *
 * Pure functions, no database. The lists load once, on first use.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { domainToASCII, domainToUnicode } from 'node:url';
import mailchecker from 'mailchecker';
import { parse } from 'tldts';

const MAX_INPUT = 2048;

/**
 * The hostname named by a URL, a bare host (`www.acme.com/about`), an email (`jo@acme.com`,
 * `Jo <jo@acme.com>`, `mailto:jo@acme.com`) or a domain; lowercased, without a trailing dot.
 */
function hostnameOf(input: string): string | null {
  let text = input.trim();
  if (text === '' || text.length > MAX_INPUT) return null;
  if (/^mailto:/i.test(text)) text = text.slice('mailto:'.length).replace(/\?.*$/s, '');
  // An email (not a URL with credentials): the part after the last @, without a closing ">".
  if (!text.includes('://') && text.includes('@'))
    text = text
      .slice(text.lastIndexOf('@') + 1)
      .replace(/>.*$/s, '')
      .trim();
  const result = parse(text, { allowPrivateDomains: true });
  if (result.isIp || !result.hostname) return null;
  return result.hostname.toLowerCase().replace(/\.$/, '');
}

/** One spelling per domain: IDNs in Unicode (`xn--bcher-kva.de` → `bücher.de`), lowercased. */
function canonical(domain: string): string | null {
  const ascii = domainToASCII(domain);
  if (!ascii) return null;
  return domainToUnicode(ascii) || null;
}

/**
 * The registrable domain ("eTLD+1") of a URL, host, email or domain: `https://www.Acme.co.uk/about` →
 * `acme.co.uk`, `jo@mail.acme.com` → `acme.com`. Private suffixes of the Public Suffix List count, so
 * `acme.github.io` stays `acme.github.io`. IP addresses, `localhost`, hosts under a suffix that is not on
 * the list (`.local`, `.internal`, `.test`) and anything invalid give null.
 */
export function registrableDomain(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const hostname = hostnameOf(input);
  if (!hostname) return null;
  const host = canonical(hostname);
  if (!host) return null;
  const result = parse(host, { allowPrivateDomains: true });
  if (result.isIp || !result.domain || !(result.isIcann || result.isPrivate)) return null;
  return result.domain;
}

/** Personal-mail providers the packaged lists miss (privacy relays and newer providers). */
const EXTRA_FREE = [
  'proton.me',
  'pm.me',
  'protonmail.ch',
  'tutanota.com',
  'tutanota.de',
  'tutamail.com',
  'tuta.io',
  'tuta.com',
  'privaterelay.appleid.com',
  'hey.com',
  'duck.com',
  'mozmail.com',
  'simplelogin.com',
  'simplelogin.co',
  'passmail.net',
  'skiff.com',
  'outlook.at',
  'gmx.com',
];

let lists: { free: Set<string>; disposable: Set<string> } | null = null;

function loadLists() {
  if (lists) return lists;
  const require = createRequire(import.meta.url);
  const read = (file: string) =>
    readFileSync(require.resolve(`freemail/data/${file}`), 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line.includes('.'));
  // freemail's own lookup scans arrays and reduces domains with an old tldjs; the sets are the same data.
  const disposable = new Set([...read('disposable.txt'), ...mailchecker.blacklist()]);
  const free = new Set([...read('free.txt'), ...EXTRA_FREE]);
  lists = { free, disposable };
  return lists;
}

/**
 * True for free mail providers (gmail.com, outlook.com, yahoo.co.uk, …; freemail's list) and disposable
 * ones (mailinator.com, …; mailchecker's and freemail's lists). The domain may also be given as an email
 * or URL. A host counts when it, or any parent down to its ICANN registrable domain, is listed: so
 * `eu.mailinator.com` is disposable, while `mail.acme.com` is not personal.
 */
export function isPersonalMailDomain(domain: string): boolean {
  if (typeof domain !== 'string') return false;
  const hostname = hostnameOf(domain);
  if (!hostname) return false;
  const host = canonical(hostname) ?? hostname;
  const ascii = domainToASCII(host) || host;
  const stop = parse(host).domain ?? host;
  const { free, disposable } = loadLists();
  for (const candidate of new Set([host, ascii])) {
    let current = candidate;
    const floor = candidate === host ? stop : domainToASCII(stop) || stop;
    for (;;) {
      if (free.has(current) || disposable.has(current)) return true;
      if (current === floor || current.length <= floor.length) break;
      const dot = current.indexOf('.');
      if (dot < 0) break;
      current = current.slice(dot + 1);
    }
  }
  return false;
}
