/**
 * What a render's page says of an assembly's active_content entries, as the merge reports them: what was
 * taken out of which part, with the report's own words, and an attachment that travels with the file.
 */
import { describe, expect, it } from 'vitest';
import { contentWarnings } from '../../src/assemble/content-warnings.js';
import { adviceFor } from '../../src/dashboard/views/render-advice.js';
import type { ReportEntry } from '../../src/render/index.js';

describe('active content on the render page', () => {
  const [launch, attachment] = contentWarnings([
    { content: 'launch', count: 2, places: ['page 1 (link)', 'the open action'], label: 'parts[1]' },
    { content: 'attachment', count: 1, places: ['"terms.txt"'], label: 'parts[1]' },
  ]);

  it('names what was taken out, from which part, and where', () => {
    expect(launch.message).toBe(
      'parts[1]: 2 Launch actions (they start a program or open a file) taken out (page 1 (link); the open action): an assembly passes on nothing that acts on its reader',
    );
    const advice = adviceFor(launch);
    expect(advice.title).toBe('Taken out of parts[1]: an action that starts a program');
    // The page names the part before these facts (renders-view.ts), so they do not name it again.
    expect(advice.facts).toEqual([['Found', '2']]);
    expect(advice.advice).toContain(launch.message);
  });

  it('says an attachment was kept', () => {
    expect(attachment).toMatchObject({ kind: 'active_content', content: 'attachment', removed: false, count: 1 });
    const advice = adviceFor(attachment);
    expect(advice.title).toBe('Kept in parts[1]: an attachment');
    expect(advice.advice).toContain('parts[1]: an attachment kept ("terms.txt")');
  });
});

describe('a resource that failed below HTTP, on the render page', () => {
  const failed = (error: string | undefined) =>
    adviceFor({
      kind: 'resource_failed',
      url: 'https://cdn.example/logo.png',
      ...(error ? { error } : {}),
      message: 'logo.png was not loaded: the report’s own words',
    } as ReportEntry);

  it('titles each failure once, in its own words, with advice of its own', () => {
    const titles = Object.fromEntries(
      [
        'refused',
        'reset',
        'timeout',
        'tls',
        'cors',
        'csp',
        'credentials',
        'orb',
        'corp',
        'framing',
        'decoding',
        'redirects',
        'relative',
        'undecodable',
      ].map((e) => [e, failed(e).title]),
    );
    expect(titles).toEqual({
      refused: 'Not loaded: the server refused the connection',
      reset: 'Not loaded: the connection was cut off',
      timeout: 'Not loaded: the server did not answer in time',
      tls: 'Not loaded: the secure connection failed',
      cors: 'Not loaded: the server did not let the document use it',
      csp: 'Not loaded: the document’s own Content-Security-Policy stopped it',
      credentials: 'Not loaded: the address holds a user name or password',
      orb: 'Not loaded: the server answered with a web page, not the file',
      corp: 'Not loaded: the server lets only its own site use the file',
      framing: 'Not loaded: the server does not let the page be shown in a frame',
      decoding: 'Not loaded: the file could not be decompressed',
      redirects: 'Not loaded: the address redirects in a loop',
      relative: 'Not loaded: the address is relative to nothing',
      undecodable: 'Not loaded: the file is not an image the browser can read',
    });
    expect(failed('orb').facts).toEqual([
      ['URL', 'https://cdn.example/logo.png'],
      ['Host', 'cdn.example'],
    ]);
    expect(failed('orb').advice).toBe(
      'Where an image, style sheet or script was expected, the server sent HTML, JSON or XML, which browsers do not load. Open the URL: it may lead to an error or sign-in page.',
    );
  });

  it('a relative address shows as written, without a host', () => {
    const advice = adviceFor({
      kind: 'resource_failed',
      url: '/img/logo.png',
      error: 'relative',
      message: '/img/logo.png was not loaded: its address is relative',
    });
    expect(advice.facts).toEqual([['URL', '/img/logo.png']]);
    expect(advice.advice).toContain('<base href="https://your.site/">');
  });

  it('a failure without a named cause gives the report’s message under one "Not loaded:"', () => {
    expect(failed(undefined)).toMatchObject({
      title: 'Not loaded: the connection failed',
      advice: 'logo.png was not loaded: the report’s own words',
    });
  });
});
