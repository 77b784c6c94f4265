/**
 * What a render's page says of an assembly's active_content entries, as the merge reports them: what was
 * taken out of which part, with the report's own words, and an attachment that travels with the file.
 */
import { describe, expect, it } from 'vitest';
import { contentWarnings } from '../../src/assemble/content-warnings.js';
import { adviceFor } from '../../src/dashboard/views/render-advice.js';

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
    expect(advice.facts).toEqual([
      ['Part', 'parts[1]'],
      ['Found', '2'],
    ]);
    expect(advice.advice).toContain(launch.message);
  });

  it('says an attachment was kept', () => {
    expect(attachment).toMatchObject({ kind: 'active_content', content: 'attachment', removed: false, count: 1 });
    const advice = adviceFor(attachment);
    expect(advice.title).toBe('Kept in parts[1]: an attachment');
    expect(advice.advice).toContain('parts[1]: an attachment kept ("terms.txt")');
  });
});
