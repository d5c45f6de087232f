/**
 * The vocabulary the bench seed draws from. Lists that pick with a skew are ordered most common first; the
 * weighted lists are expanded into slots (one entry per percent) so that SQL can pick one with a single
 * uniform number.
 */

// Common first and last names, many of them shared: ties in `name` are what a name sort must break by id.
export const FIRST_NAMES = [
  'James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Daniel', 'Karen',
  'Wei', 'Priya', 'Rahul', 'Anita', 'Arjun', 'Deepika', 'Hiroshi', 'Yuki', 'Kenji', 'Sakura',
  'Lukas', 'Anna', 'Maximilian', 'Sophie', 'Felix', 'Lena', 'Jonas', 'Marie', 'Leon', 'Laura',
  'Lucas', 'Camille', 'Hugo', 'Léa', 'Louis', 'Chloé', 'Gabriel', 'Manon', 'Mateus', 'Beatriz',
  'João', 'Ana', 'Pedro', 'Mariana', 'Oliver', 'Amelia', 'Harry', 'Isla', 'George', 'Ava',
  'Noah', 'Emma', 'Liam', 'Olivia', 'Ethan', 'Mia', 'Aiden', 'Zoe', 'Mohammed', 'Fatima',
  'Ali', 'Aisha', 'Omar', 'Layla', 'Chen', 'Mei', 'Jun', 'Lin', 'Santiago', 'Valentina',
  'Mateo', 'Camila', 'Diego', 'Lucía', 'Ivan', 'Olga', 'Dmitri', 'Natalia', 'Erik', 'Ingrid',
  'Lars', 'Astrid', 'Sven', 'Freya', 'Kofi', 'Ama', 'Tariq', 'Nia', 'Ravi', 'Sunita',
];

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Kumar', 'Sharma', 'Patel', 'Singh', 'Gupta', 'Wang', 'Li', 'Zhang', 'Liu', 'Chen',
  'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann',
  'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau',
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Pereira', 'Costa', 'Ferreira', 'Almeida', 'Tanaka', 'Suzuki',
  'Takahashi', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Taylor', 'Wilson', 'Evans', 'Walker',
  'Wright', 'Thompson', 'White', 'Hughes', 'Edwards', 'Green', 'Hall', 'Wood', 'Harris', 'Clarke',
  'Anderson', 'Jackson', 'Lee', 'Nguyen', 'Kim', 'Park', 'Choi', 'Hernández', 'López', 'González',
  'Pérez', 'Sánchez', 'Ramírez', 'Torres', 'Flores', 'Rivera', 'Gómez', 'Díaz', 'Ivanov', 'Petrov',
  'Andersson', 'Johansson', 'Larsen', 'Nielsen', 'Hansen', 'Mensah', 'Okafor', 'Khan', 'Ahmed', 'Hassan',
  'O’Brien', 'Murphy', 'Kelly', 'Byrne', 'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano',
];

export const TITLES = [
  'Software Engineer', 'Senior Software Engineer', 'Staff Engineer', 'Engineering Manager', 'Developer Advocate',
  'Product Manager', 'CTO', 'VP of Engineering', 'Data Engineer', 'Data Scientist', 'DevOps Engineer',
  'Site Reliability Engineer', 'Frontend Developer', 'Backend Developer', 'Full Stack Developer', 'Founder',
  'Co-founder & CEO', 'Solutions Architect', 'Technical Writer', 'Student', 'Security Engineer',
  'Platform Engineer', 'Head of Developer Relations', 'Community Manager', 'Consultant',
];

// Two word lists whose pairs name the organizations ("Blue Labs"); a number keeps domains unique.
export const ORG_FIRST = [
  'Acme', 'Blue', 'Bright', 'Cloud', 'Data', 'Deep', 'Edge', 'Fast', 'Green', 'Hyper', 'Iron', 'Kite', 'Lumen',
  'Meta', 'Nimbus', 'North', 'Open', 'Pixel', 'Quantum', 'Red', 'Silver', 'Stack', 'Swift', 'Terra', 'Vector',
];
export const ORG_SECOND = [
  'Labs', 'Systems', 'Software', 'Works', 'Analytics', 'Cloud', 'Networks', 'AI', 'Data', 'Dynamics', 'Studio',
  'Technologies', 'Bank', 'Health', 'Logistics', 'Media', 'Robotics', 'Security', 'Energy', 'Games',
];
export const ORG_TLDS = ['com', 'com', 'com', 'io', 'io', 'dev', 'ai', 'co', 'de', 'fr'];
export const FREE_MAIL = ['gmail.com', 'gmail.com', 'gmail.com', 'outlook.com', 'yahoo.com', 'proton.me', 'hotmail.com'];

/** What the gazetteer makes of a raw location, for the cities of the seed (checked against interpretLocation). */
interface Place {
  raw: string;
  city: string;
  region: string;
  country: string;
  countryCode: string;
  worldRegion: string;
  /** Percent of located contacts. */
  weight: number;
}

const PLACES: Place[] = [
  { raw: 'San Francisco, CA', city: 'San Francisco', region: 'California', country: 'United States', countryCode: 'US', worldRegion: 'North America', weight: 10 },
  { raw: 'New York', city: 'New York City', region: 'New York', country: 'United States', countryCode: 'US', worldRegion: 'North America', weight: 9 },
  { raw: 'Austin, Texas', city: 'Austin', region: 'Texas', country: 'United States', countryCode: 'US', worldRegion: 'North America', weight: 6 },
  { raw: 'Seattle, WA', city: 'Seattle', region: 'Washington', country: 'United States', countryCode: 'US', worldRegion: 'North America', weight: 7 },
  { raw: 'Bengaluru, India', city: 'Bengaluru', region: 'Karnataka', country: 'India', countryCode: 'IN', worldRegion: 'Asia', weight: 9 },
  { raw: 'Pune, India', city: 'Pune', region: 'Maharashtra', country: 'India', countryCode: 'IN', worldRegion: 'Asia', weight: 5 },
  { raw: 'Berlin, Germany', city: 'Berlin', region: 'Berlin', country: 'Germany', countryCode: 'DE', worldRegion: 'Europe', weight: 6 },
  { raw: 'Munich', city: 'Munich', region: 'Bavaria', country: 'Germany', countryCode: 'DE', worldRegion: 'Europe', weight: 4 },
  { raw: 'London, UK', city: 'London', region: 'England', country: 'United Kingdom', countryCode: 'GB', worldRegion: 'Europe', weight: 8 },
  { raw: 'Manchester, UK', city: 'Manchester', region: 'England', country: 'United Kingdom', countryCode: 'GB', worldRegion: 'Europe', weight: 2 },
  { raw: 'Paris, France', city: 'Paris', region: 'Île-de-France', country: 'France', countryCode: 'FR', worldRegion: 'Europe', weight: 5 },
  { raw: 'Lyon', city: 'Lyon', region: 'Auvergne-Rhône-Alpes', country: 'France', countryCode: 'FR', worldRegion: 'Europe', weight: 2 },
  { raw: 'São Paulo, Brazil', city: 'São Paulo', region: 'São Paulo', country: 'Brazil', countryCode: 'BR', worldRegion: 'South America', weight: 5 },
  { raw: 'Toronto, Canada', city: 'Toronto', region: 'Ontario', country: 'Canada', countryCode: 'CA', worldRegion: 'North America', weight: 4 },
  { raw: 'Vancouver', city: 'Vancouver', region: 'British Columbia', country: 'Canada', countryCode: 'CA', worldRegion: 'North America', weight: 2 },
  { raw: 'Tokyo, Japan', city: 'Tokyo', region: 'Tokyo', country: 'Japan', countryCode: 'JP', worldRegion: 'Asia', weight: 5 },
  { raw: 'Amsterdam', city: 'Amsterdam', region: 'North Holland', country: 'Netherlands', countryCode: 'NL', worldRegion: 'Europe', weight: 4 },
  { raw: 'Sydney, Australia', city: 'Sydney', region: 'New South Wales', country: 'Australia', countryCode: 'AU', worldRegion: 'Oceania', weight: 4 },
  { raw: 'Madrid', city: 'Madrid', region: 'Madrid', country: 'Spain', countryCode: 'ES', worldRegion: 'Europe', weight: 3 },
];

/** One entry per percent of located contacts, as parallel arrays (SQL indexes them with one number). */
export const PLACE_SLOTS = (() => {
  const slots = PLACES.flatMap((place) => Array.from({ length: place.weight }, () => place));
  if (slots.length !== 100) throw new Error(`place weights add up to ${slots.length}, not 100`);
  return {
    raw: slots.map((p) => p.raw),
    city: slots.map((p) => p.city),
    region: slots.map((p) => p.region),
    country: slots.map((p) => p.country),
    countryCode: slots.map((p) => p.countryCode),
    worldRegion: slots.map((p) => p.worldRegion),
  };
})();

// Tags, most held first: tag n is held by about half as many contacts as tag n-5.
export const TAG_NAMES = [
  'community-member', 'newsletter', 'github-stargazer', 'slack-member', 'developer', 'customer', 'trial',
  'champion', 'beta-tester', 'event-attendee', 'webinar-attendee', 'contributor', 'speaker', 'partner',
  'enterprise', 'startup', 'student', 'ambassador', 'open-source-maintainer', 'power-user', 'churn-risk',
  'upsell', 'hackathon', 'meetup-host', 'docs-contributor', 'design-partner', 'investor', 'press', 'vip', 'hiring',
];

export const SEGMENT_NAMES = [
  'Active contributors', 'Enterprise prospects', 'Champions', 'New this quarter', 'Event attendees 2024',
  'Beta program', 'Dormant power users', 'Advocates', 'Slack helpers', 'Conference speakers',
];

/** The sources of the seed beside the bootstrap's "API" source, with their sub sources. */
export const SOURCES = [
  { name: 'GitHub', serviceName: 'github', subSources: ['hearth/hearth', 'hearth/docs', 'hearth/sdk-js', 'hearth/sdk-python'] },
  { name: 'Slack', serviceName: 'slack', subSources: ['#general', '#help', '#announcements', '#dev', '#random'] },
  { name: 'Forum', serviceName: 'discourse', subSources: ['Q&A', 'Show and tell', 'Feature requests'] },
  { name: 'X', serviceName: 'twitter', subSources: [] },
] as const;

/**
 * Kinds of activity: a source, an activity type of the catalog, whether it replies to another activity
 * (then it is threaded under an earlier one of the same source when there is one), and its weight in
 * percent of all activities. `API` is the bootstrap source.
 */
const KINDS: { source: string; type: string; reply: boolean; weight: number }[] = [
  { source: 'GitHub', type: 'starred_repo', reply: false, weight: 6 },
  { source: 'GitHub', type: 'issue_opened', reply: false, weight: 4 },
  { source: 'GitHub', type: 'issue_comment', reply: true, weight: 7 },
  { source: 'GitHub', type: 'pr_opened', reply: false, weight: 4 },
  { source: 'GitHub', type: 'pr_review', reply: true, weight: 3 },
  { source: 'GitHub', type: 'pr_comment', reply: true, weight: 4 },
  { source: 'GitHub', type: 'pr_merged', reply: false, weight: 2 },
  { source: 'GitHub', type: 'commit', reply: false, weight: 3 },
  { source: 'GitHub', type: 'forked_repo', reply: false, weight: 2 },
  { source: 'Slack', type: 'slack_message', reply: false, weight: 14 },
  { source: 'Slack', type: 'slack_thread_reply', reply: true, weight: 9 },
  { source: 'Slack', type: 'slack_reaction', reply: false, weight: 5 },
  { source: 'Slack', type: 'slack_joined_channel', reply: false, weight: 2 },
  { source: 'Forum', type: 'forum_topic', reply: false, weight: 5 },
  { source: 'Forum', type: 'forum_reply', reply: true, weight: 6 },
  { source: 'Forum', type: 'forum_like', reply: false, weight: 3 },
  { source: 'Forum', type: 'forum_accepted_answer', reply: false, weight: 1 },
  { source: 'X', type: 'tweet_mention', reply: false, weight: 4 },
  { source: 'X', type: 'tweet_reply', reply: true, weight: 2 },
  { source: 'X', type: 'retweet', reply: false, weight: 2 },
  { source: 'API', type: 'product_login', reply: false, weight: 6 },
  { source: 'API', type: 'product_signup', reply: false, weight: 1 },
  { source: 'API', type: 'registered_for_webinar', reply: false, weight: 2 },
  { source: 'API', type: 'attended_webinar', reply: false, weight: 1 },
  { source: 'API', type: 'downloaded', reply: false, weight: 2 },
];

export const KIND_SLOTS = (() => {
  const slots = KINDS.flatMap((kind) => Array.from({ length: kind.weight }, () => kind));
  if (slots.length !== 100) throw new Error(`activity kind weights add up to ${slots.length}, not 100`);
  return { source: slots.map((k) => k.source), type: slots.map((k) => k.type), reply: slots.map((k) => k.reply) };
})();

export const CONTENT = [
  'Thanks, that fixed it!', 'Is there a way to page through contacts by latest activity?',
  'The new release works great with our setup.', 'I get a 403 when my token lacks a scope, is that expected?',
  'Shipped the integration today 🎉', 'Could the docs show an example of a nested lightFilter?',
  'We moved our community data to Hearth last week.', 'How do I run it on the embedded database?',
  'Great talk at the meetup yesterday.', 'Opened a PR that adds the missing field to the SDK.',
];
