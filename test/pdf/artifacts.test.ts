/**
 * Content outside the structure becomes an artifact, one text object at a time: a text object is left
 * alone (and counted as unmarkable) only when it holds tagged content, a sequence with an MCID.
 */
import { describe, expect, it } from 'vitest';
import { markArtifacts } from '../../src/pdf/profiles/artifacts.js';

const noForms = () => undefined;

describe('markArtifacts', () => {
  it('wraps a text object whose only marked content is a ligature’s ActualText', () => {
    const stream = 'BT\n/F1 12 Tf\n<0025> Tj\n/Span<</ActualText (fi) >> BDC\n<02ea> Tj\nEMC\n<026d> Tj\nET';
    expect(markArtifacts(stream, noForms)).toEqual({ text: `/Artifact BMC\n${stream}\nEMC`, forms: [], unmarkable: 0 });
  });

  it('leaves a text object with tagged content and untagged text, and counts it', () => {
    const stream = 'BT\n/F1 12 Tf\n/P <</MCID 3 >>BDC\n<0025> Tj\nEMC\n<026d> Tj\nET';
    expect(markArtifacts(stream, noForms)).toEqual({ forms: [], unmarkable: 1 });
  });

  it('counts a property list named by resource as tagged (it may hold an MCID)', () => {
    const stream = 'BT\n/F1 12 Tf\n/Span /P0 BDC\n<0025> Tj\nEMC\n<026d> Tj\nET';
    expect(markArtifacts(stream, noForms)).toEqual({ forms: [], unmarkable: 1 });
  });
});
