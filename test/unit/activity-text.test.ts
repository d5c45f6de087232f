import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainText, type ActivityContent } from '../../src/modules/activities/markdown-text.ts';
import { sentimentOf, type Sentiment } from '../../src/modules/activities/sentiment.ts';
import { extractTopics } from '../../src/modules/activities/topics.ts';

const markdown = (value: string): ActivityContent => ({ type: 'markdown', value });
const md = (value: string) => plainText(markdown(value));

// Realistic community posts, as clients push them.
const GITHUB_PR_COMMENT = `Thanks @alice! This mostly looks good. A few notes:

- The **connection pool** still leaks when the \`acquireTimeout\` fires; see [the failing test](https://github.com/acme/hearth/actions/runs/123).
- Can we add a regression test for the race condition in \`PoolManager.release()\`?
- Nit: rename \`max_conns\` to \`maxConnections\` in src/db/pool.ts.

Once the connection pool leak is fixed I'm happy to merge. cc @bob`;

const KUBERNETES_QUESTION = `## Kubernetes ingress returns 404 for every path

I'm running ingress-nginx on a bare-metal Kubernetes cluster (v1.29). The Ingress resource looks right, but every
request to https://app.example.com/api returns a 404 from the NGINX controller.

\`\`\`yaml
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app
\`\`\`

I already checked the ingress class and the service endpoints. What am I missing? Email me at ops@example.com.`;

const SLACK_MESSAGE =
  'hey team :wave: the staging deploy is failing again, looks like the Terraform state lock on the S3 bucket is ' +
  'stuck. <@U024BE7LH> can you take a look? logs in <#C024BE7LH|ops-alerts> and ' +
  '<https://grafana.example.com/d/abc|the dashboard>';

describe('plainText', () => {
  it('returns text unchanged but trimmed', () => {
    const value = '  **not markdown** [here](x) `code`\n\n  second line  \n';
    expect(plainText({ type: 'text', value })).toBe('**not markdown** [here](x) `code`\n\n  second line');
    expect(plainText({ type: 'text', value: '' })).toBe('');
    expect(plainText({ type: 'text', value: ' \n\t ' })).toBe('');
    // Private-use characters are the sender's text, not the Markdown converter's placeholders.
    expect(plainText({ type: 'text', value: ' \uE000 1 \uE001 ' })).toBe('\uE000 1 \uE001');
    expect(plainText({ type: 'markdown', value: '\uE0000\uE001 **a**' })).toBe('0 a');
  });

  it.each<[string, string, string]>([
    ['ATX headings', '# Title\n\n## Sub title ##\n###### Six', 'Title\n\nSub title\nSix'],
    ['setext headings', 'Title\n=====\n\nSub\n---\ntext', 'Title\n\nSub\n\ntext'],
    ['a hash without a space is not a heading', '#hashtag and #123', '#hashtag and #123'],
    ['strong and emphasis', 'a **b** c __d__ e *f* g _h_ ***i*** ~~j~~', 'a b c d e f g h i j'],
    ['nested emphasis', '**bold *and italic* inside**', 'bold and italic inside'],
    ['intraword underscores stay', 'snake_case_name and __init__ stay', 'snake_case_name and init stay'],
    ['lone asterisks stay', '5 * 3 * 2 and a * b', '5 * 3 * 2 and a * b'],
    ['links give their text', 'See [the docs](https://example.com/a_b_c "Title") now', 'See the docs now'],
    ['links with parentheses in the address', '[Foo](https://en.wikipedia.org/wiki/Foo_(bar)) ok', 'Foo ok'],
    ['links with angle-bracket addresses', '[a b](<https://x.y/a b>)', 'a b'],
    ['reference links', '[one][r] and [two][] and [r]\n\n[r]: https://x.y\n[two]: https://z', 'one and two and r'],
    ['unknown references stay', '[not a link] and [x][nope]', '[not a link] and [x][nope]'],
    ['images give their alt text', 'Look: ![a cat](cat.png "Cat") here', 'Look: a cat here'],
    ['linked badges give the alt text', '[![build passing](https://ci/badge.svg)](https://ci)', 'build passing'],
    ['autolinks and bare URLs stay', '<https://x.y/a_b_c> and https://x.y/*p*', 'https://x.y/a_b_c and https://x.y/*p*'],
    ['email autolinks', 'mail <me@example.com>', 'mail me@example.com'],
    ['code spans keep their text', 'run `npm **install**` and ``a ` b``', 'run npm **install** and a ` b'],
    ['escapes are literal', String.raw`\*not em\* and \[not link\](x) and \_x\_`, '*not em* and [not link](x) and _x_'],
    ['unordered lists', '- one\n* two\n+ three', '- one\n- two\n- three'],
    ['ordered lists', '1. one\n2) two\n10. ten', '1. one\n2. two\n10. ten'],
    ['nested lists', '- top\n  - nested **item**\n    1. deep', '- top\n  - nested item\n    1. deep'],
    ['task lists', '- [ ] todo\n- [x] done', '- todo\n- done'],
    ['list continuation lines', '- item\n  continued here\n\nafter', '- item\n  continued here\n\nafter'],
    ['block quotes', '> quoted **text**\n> > nested\n>\n> more', 'quoted text\nnested\n\nmore'],
    ['fenced code keeps its text', '```js\nconst a = b * 2; // **x**\n  indented\n```\nafter', 'const a = b * 2; // **x**\n  indented\n\nafter'],
    ['tilde fences', '~~~\n[not](link)\n~~~', '[not](link)'],
    ['an unclosed fence runs to the end', '```\ncode *x*', 'code *x*'],
    ['indented code', 'para\n\n    code *x*\n    more\n\nafter', 'para\n\ncode *x*\nmore\n\nafter'],
    ['thematic breaks go', 'a\n\n***\n\n- - -\n\nb', 'a\n\nb'],
    ['tables', '| Name | Value |\n|------|:-----:|\n| a | **b** |', 'Name | Value\na | b'],
    ['HTML tags are stripped', 'a <b>bold</b> <span class="x">word</span><br/>next', 'a bold word next'],
    ['HTML images give their alt', '<img src="x.png" alt="diagram"> done', 'diagram done'],
    ['HTML blocks', '<details>\n<summary>Logs</summary>\n\nSome text\n</details>', 'Logs\n\nSome text'],
    ['HTML comments go', 'a <!-- hidden\nacross lines --> b', 'a b'],
    ['HTML in code stays', 'use `<div>` here', 'use <div> here'],
    ['entities are decoded', 'a &amp; b &lt;tag&gt; &quot;q&quot; &#39;s &#x1F600; &copy; &unknown;', 'a & b <tag> "q" \'s 😀 © &unknown;'],
    ['footnotes', 'Claim[^1].\n\n[^1]: The source.', 'Claim.\n\nThe source.'],
    ['whitespace is tidied', '\n\n  a   b  \n\n\n\n c \n\n', 'a b\n\nc'],
    ['Windows line endings', '# T\r\n\r\n**x**\r\n', 'T\n\nx'],
  ])('%s', (_, value, expected) => {
    expect(md(value)).toBe(expected);
  });

  it('reads a realistic pull request comment', () => {
    expect(md(GITHUB_PR_COMMENT)).toBe(
      'Thanks @alice! This mostly looks good. A few notes:\n\n' +
        '- The connection pool still leaks when the acquireTimeout fires; see the failing test.\n' +
        '- Can we add a regression test for the race condition in PoolManager.release()?\n' +
        '- Nit: rename max_conns to maxConnections in src/db/pool.ts.\n\n' +
        "Once the connection pool leak is fixed I'm happy to merge. cc @bob",
    );
  });

  it('gives "" for values that are not text', () => {
    expect(plainText({ type: 'markdown', value: 42 } as unknown as ActivityContent)).toBe('');
    expect(plainText(null as unknown as ActivityContent)).toBe('');
    expect(plainText({ type: 'html', value: ' <b>x</b> ' } as unknown as ActivityContent)).toBe('<b>x</b>');
  });

  it('is fast on hostile markdown', () => {
    const hostile = '**'.repeat(20_000) + '`'.repeat(5_000) + '[x]('.repeat(5_000) + '<!--'.repeat(5_000) + '_a'.repeat(20_000);
    const started = performance.now();
    md(hostile);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('sentimentOf', () => {
  it.each([
    'Thanks for the quick fix, works perfectly now!',
    'LGTM, nice work on the refactor.',
    'Really enjoyed the talk at KubeCon, the demo was excellent.',
    'This library is amazing and the docs are great.',
    'Congrats on the 2.0 release 🎉',
    'Welcome to the community! Happy to have you here.',
    'I love the new dashboard :)',
  ])('positive: %s', (text) => {
    expect(sentimentOf(text)).toBe('positive');
  });

  it.each([
    'This is broken and terrible. I hate it.',
    'The upgrade broke everything, really frustrating.',
    'This is a terrible experience, the app crashes every time I open it.',
    'Unfortunately the docs are confusing and wrong.',
    'I am disappointed, support never answered.',
    'Performance is awful since the last release.',
    'This is not good at all.',
  ])('negative: %s', (text) => {
    expect(sentimentOf(text)).toBe('negative');
  });

  it.each([
    'The meeting is at 3pm on Tuesday.',
    'How do I configure the ingress controller for TLS?',
    'Could you add support for dark mode?',
    'Closing as duplicate of #123.',
    'Bumped the version to 1.4.2 and updated the changelog.',
    'Which version of Node are you using?',
    'Is there a way to export contacts as CSV?',
  ])('neutral: %s', (text) => {
    expect(sentimentOf(text)).toBe('neutral');
  });

  it.each(['', '   ', '\n\t', '1234', '--- *** ---', '```'])('neutral when there is nothing to read: %j', (text) => {
    expect(sentimentOf(text)).toBe('neutral');
  });

  it.each<[string, Sentiment]>([
    ['# Release 2.0\n\nThis release is **amazing**, thank you [everyone](https://x.y)! 🎉', 'positive'],
    ['> Still crashing\n\n**This is terrible.** The `sync` job fails *every* time and I hate it.', 'negative'],
    ['## Changelog\n\n- Bumped `pg` to 8.13\n- Moved [docs](https://x.y) to `/docs`', 'neutral'],
  ])('reads markdown through plainText: %j', (value, expected) => {
    expect(sentimentOf(md(value))).toBe(expected);
  });

  it('reads realistic posts', () => {
    expect(sentimentOf(md(GITHUB_PR_COMMENT))).toBe('positive');
    expect(sentimentOf(md(KUBERNETES_QUESTION))).toBe('neutral');
  });
});

describe('extractTopics', () => {
  it('finds the topics of a pull request comment', () => {
    const topics = extractTopics(md(GITHUB_PR_COMMENT));
    expect(topics.slice(0, 3)).toEqual(['connection pool', 'regression test', 'race condition']);
    for (const noise of ['alice', 'bob', 'acquireTimeout', 'maxConnections', 'max_conns', 'PoolManager', 'nit', 'notes']) {
      expect(topics.map((topic) => topic.toLowerCase())).not.toContain(noise.toLowerCase());
    }
  });

  it('finds the topics of a forum question about Kubernetes ingress', () => {
    expect(extractTopics(md(KUBERNETES_QUESTION))).toEqual(['Kubernetes', 'Ingress', 'NGINX', 'ingress class', 'service endpoint']);
    const more = extractTopics(md(KUBERNETES_QUESTION), 20);
    expect(more).toContain('ingress-nginx');
    for (const noise of ['apiVersion', 'metadata', 'app', 'example', 'ops', '404', 'v1.29', 'path']) {
      expect(more).not.toContain(noise);
    }
  });

  it('finds the topics of a Slack message', () => {
    const topics = extractTopics(SLACK_MESSAGE, 10);
    expect(topics.slice(0, 5)).toEqual(['Terraform', 'S3', 'staging', 'state', 'bucket']);
    expect(topics).toContain('dashboard');
    for (const noise of ['team', 'wave', 'U024BE7LH', 'C024BE7LH', 'ops-alerts', 'look', 'grafana']) {
      expect(topics).not.toContain(noise);
    }
  });

  it('finds noun phrases and proper nouns, most frequent first', () => {
    expect(
      extractTopics(
        'How do I configure a Kubernetes ingress controller with NGINX for TLS termination on GKE? ' + 'The ingress controller ignores my TLS secret.',
      ),
    ).toEqual(['ingress controller', 'TLS', 'Kubernetes', 'NGINX', 'GKE']);
  });

  it('lowercases common nouns and keeps proper nouns and acronyms as written', () => {
    expect(extractTopics('The database connection to PostgreSQL uses TLS and the API. Our APIs and CRDs are in GitHub.', 10)).toEqual(
      expect.arrayContaining(['database connection', 'PostgreSQL', 'TLS', 'API', 'CRD', 'GitHub']),
    );
  });

  it('deduplicates spellings and plurals', () => {
    const topics = extractTopics('Pods crash. The pod restarts. kubernetes pods and Kubernetes pods. Kubernetes!', 10);
    expect(topics.filter((topic) => topic.toLowerCase() === 'kubernetes')).toHaveLength(1);
    expect(topics).toContain('Kubernetes');
    expect(topics.filter((topic) => /^pods?$/i.test(topic))).toHaveLength(1);
  });

  it('reads a capitalized sentence opener as the word it is', () => {
    expect(extractTopics('Great job! Awesome stuff. Closing this now.')).toEqual([]);
  });

  it('keeps technology names that contain punctuation', () => {
    expect(extractTopics('We moved from C++ and C# to Node.js, then to ASP.NET and Vue.js.', 10)).toEqual(
      expect.arrayContaining(['C++', 'C#', 'Node.js', 'ASP.NET', 'Vue.js']),
    );
  });

  it('takes hashtag words', () => {
    expect(extractTopics('See you at #KubeCon, talking #observability', 10)).toEqual(['KubeCon', 'observability']);
  });

  it('removes URLs, emails, mentions, issue references and code', () => {
    const topics = extractTopics(
      'Ping @carol or write to carol@example.com, see https://docs.example.com/setup and www.example.org. ' +
        'Fixed in #42 and acme/web#17. Run `kubectl get pods` or ```\nhelm install chart\n```, ' +
        'edit config.yaml, call useEffect() and my_function, bump to v2.1.0, commit 3f9a2c1d.',
      20,
    );
    expect(topics).toEqual([]);
  });

  it('does not take shouting for acronyms', () => {
    expect(extractTopics('THE DATABASE MIGRATION FAILED AGAIN ON THE SERVER')).toEqual(['database migration', 'server']);
  });

  it('drops stop words, dates, numbers, greetings and tiny words', () => {
    expect(extractTopics('Hi everyone, thanks! On Monday at 3pm we had 42 of them. It is ok.')).toEqual([]);
  });

  it('respects the limit', () => {
    const text = 'Kubernetes, Docker, Terraform, Ansible, Prometheus, Grafana and Jenkins.';
    expect(extractTopics(text)).toHaveLength(5);
    expect(extractTopics(text, 2)).toEqual(['Kubernetes', 'Docker']);
    expect(extractTopics(text, 0)).toEqual([]);
    expect(extractTopics(text, -3)).toEqual([]);
    expect(extractTopics(text, 2.7)).toHaveLength(2);
    expect(extractTopics(text, Number.NaN)).toHaveLength(5);
    expect(extractTopics(text, 100)).toHaveLength(7);
  });

  it.each(['', '   ', '!!!', '42', '🎉🎉'])('gives nothing for %j', (text) => {
    expect(extractTopics(text)).toEqual([]);
  });
});

describe('the language model', () => {
  it('loads once and is shared', () => {
    const require = createRequire(import.meta.url);
    const loaded = () => Object.keys(require.cache).filter((file) => file.includes('wink-eng-lite-web-model')).length;
    sentimentOf('warm up');
    const modules = loaded();
    expect(modules).toBeGreaterThan(0);
    extractTopics('Kubernetes clusters');
    sentimentOf('again');
    expect(loaded()).toBe(modules);
  });

  it('bounds the work on very long text', () => {
    const long = 'The ingress controller is great. '.repeat(30_000);
    const started = performance.now();
    expect(sentimentOf(long)).toBe('positive');
    expect(extractTopics(long)).toEqual(['ingress controller']);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('properties: nothing throws', () => {
  const markdownish = fc.string({
    unit: fc.constantFrom(...'*_`~[]()!<>#-+|\\:;&/.\n \tabcXY1é🎉'.split(''), '```', '](', '<!--', '-->', '&#x', 'http://'),
    maxLength: 200,
  });
  const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), markdownish);

  it('plainText', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom<'text' | 'markdown'>('text', 'markdown'), (value, type) => {
        const text = plainText({ type, value });
        expect(typeof text).toBe('string');
        expect(text).toBe(text.trim());
        // Plain text is the sender's own text; only the Markdown converter's placeholders must never leak.
        if (type === 'text') expect(text).toBe(value.trim());
        else expect(text).not.toMatch(/[\uE000\uE001]/);
      }),
      { numRuns: 3000 },
    );
  });

  it('plainText on values that are not content', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof plainText(value as ActivityContent)).toBe('string');
        expect(typeof plainText({ type: 'markdown', value } as ActivityContent)).toBe('string');
      }),
    );
  });

  it('sentimentOf', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(['positive', 'negative', 'neutral']).toContain(sentimentOf(text));
        expect(['positive', 'negative', 'neutral']).toContain(sentimentOf(md(text)));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(['positive', 'negative', 'neutral']).toContain(sentimentOf(value as string));
      }),
    );
  });

  it('extractTopics', () => {
    fc.assert(
      fc.property(anyText, fc.option(fc.integer({ min: -5, max: 20 }), { nil: undefined }), (text, limit) => {
        const topics = extractTopics(text, limit);
        expect(Array.isArray(topics)).toBe(true);
        expect(topics.length).toBeLessThanOrEqual(Math.max(0, limit ?? 5));
        for (const topic of topics) {
          expect(typeof topic).toBe('string');
          expect(topic.trim()).toBe(topic);
          expect(topic.length).toBeGreaterThanOrEqual(2);
        }
        expect(new Set(topics.map((topic) => topic.toLowerCase())).size).toBe(topics.length);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (value, limit) => {
        expect(Array.isArray(extractTopics(value as string, limit as number))).toBe(true);
      }),
    );
  });

  it('extractTopics on words', () => {
    const words = fc.array(
      fc.constantFrom(
        'Kubernetes',
        'the',
        'pod',
        'pods',
        'API',
        'APIs',
        'is',
        'Great',
        'C++',
        'Node.js',
        '#42',
        '@bob',
        'x_y',
        'cert-manager',
        "I'm",
        'a',
        '.',
        ',',
        '\n',
        'connection',
        'pool',
        'THE',
        'DATABASE',
        'http://x.y',
        '`code`',
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(words, (list) => {
        const topics = extractTopics(list.join(' '), 10);
        expect(new Set(topics.map((topic) => topic.toLowerCase())).size).toBe(topics.length);
      }),
      { numRuns: 1000 },
    );
  });
});
