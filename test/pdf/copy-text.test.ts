/**
 * The assembler's quick copy of an object's text: references renumbered wherever they stand, nothing
 * inside strings, names or comments taken for one, and the objects it must leave to the parsed copy.
 */
import { describe, expect, it } from 'vitest';
import { copyObjectText } from '../../src/pdf/assemble/copy-text.js';
import { PdfRef, serialize } from '../../src/pdf/profiles/pdf-objects.js';
import { PdfParser } from '../../src/pdf/profiles/pdf-parser.js';

const renumber = (num: number, gen: number): string => `${num + 100} ${gen} R`;
const copy = (body: string, rules: { offset?: number; ids?: Record<string, string> } = {}): string | undefined =>
  copyObjectText(`7 0 obj\n${body}\nendobj\n`, 'obj'.length + 4, {
    ref: renumber,
    structParentOffset: rules.offset ?? 0,
    renameId: (token) => rules.ids?.[token],
  });

describe('copyObjectText', () => {
  it('renumbers references in dictionaries and arrays, keeping everything else as written', () => {
    expect(copy('<</Type /StructElem /S /P /P 12 0 R /K [3 0 R <</Type /MCR /Pg 4 0 R /MCID 0>>]>>')).toBe(
      '\n<</Type /StructElem /S /P /P 112 0 R /K [103 0 R <</Type /MCR /Pg 104 0 R /MCID 0>>]>>\n',
    );
    expect(copy('[1 0 R 2 0 R]')).toBe('\n[101 0 R 102 0 R]\n');
    expect(copy('<</A 5\n0\nR/B 6 1 R>>')).toBe('\n<</A 105 0 R/B 106 1 R>>\n');
  });

  it('takes nothing inside a string, a hex string, a name or a comment for a reference or the end', () => {
    expect(copy('<</T (see 1 0 R \\) and (endobj) 2 0 R) /U <31 30 52> /N [/R1 0 R]>>')).toBe(
      '\n<</T (see 1 0 R \\) and (endobj) 2 0 R) /U <31 30 52> /N [/R1 0 R]>>\n',
    );
    expect(copy('<</A 1 0 R % 2 0 R endobj (\n/B 3 0 R>>')).toBe('\n<</A 101 0 R % 2 0 R endobj (\n/B 103 0 R>>\n');
    // Numbers that are not references stay: a real, a lone integer, `R` glued to more letters.
    expect(copy('[1.5 0 R 2 3 4 0 RG]')).toBe('\n[1.5 0 R 2 3 4 0 RG]\n');
  });

  it('reads a reference wherever qpdf and poppler read one, comments and vertical tabs between its tokens, as the parser does', () => {
    // Text the copy does not take for a reference is written as it stood: a reader that takes it for one
    // would resolve it against the assembly's objects. So the copy and the parser must agree with the readers.
    const long = `%${'x'.repeat(100)}`;
    for (const [body, copied, parsed] of [
      ['[4 0 %note\nR]', '[104 0 R]', '[4 0 R]'],
      ['[4 %note\r0 R 5 0%\nR]', '[104 0 R 105 0 R]', '[4 0 R 5 0 R]'],
      [`[4 ${long}\n0 ${long}\nR]`, '[104 0 R]', '[4 0 R]'],
      ['[4\v0 R 5 0\vR 6\x000 R]', '[104 0 R 105 0 R 106 0 R]', '[4 0 R 5 0 R 6 0 R]'],
      // No reader takes a no-break space for white space; the parser reads the number and a word.
      ['[4 0\xa0R]', '[4 0\xa0R]', '[4 0\xa0R]'],
    ]) {
      expect(copy(body), JSON.stringify(body)).toBe(`\n${copied}\n`);
      const value = new PdfParser(body).value();
      expect(serialize(value), JSON.stringify(body)).toBe(parsed);
      expect((value as unknown[]).filter((item) => item instanceof PdfRef)).toHaveLength((parsed.match(/ R/g) ?? []).length);
    }
  });

  it('stays linear where a comment follows every number: 4 MB read by both in under 2 s', () => {
    const body = `[${`1 %${'x'.repeat(200)}\n`.repeat(20_000)}]`;
    expect(body.length).toBeGreaterThan(4_000_000);
    const started = performance.now();
    expect(copy(body)).toBe(`\n${body}\n`);
    expect((new PdfParser(body).value() as unknown[]).length).toBe(20_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('shifts parent tree keys and renames structure IDs, in an element and in a cell’s /Headers', () => {
    const ids = { '(node1)': '<6e6f6465312d32>' };
    expect(copy('<</S /TH /ID (node1) /K [0 1 0 R]>>', { ids })).toBe('\n<</S /TH /ID <6e6f6465312d32> /K [0 101 0 R]>>\n');
    expect(copy('<</A [<</O /Table /Headers [(node1) (node2)]>>] /T (node1)>>', { ids })).toBe(
      '\n<</A [<</O /Table /Headers [<6e6f6465312d32> (node2)]>>] /T (node1)>>\n',
    );
    expect(copy('<</Type /Page /StructParents 4 /Annots [<</StructParent 5>>]>>', { offset: 10 })).toBe(
      '\n<</Type /Page /StructParents 14 /Annots [<</StructParent 15>>]>>\n',
    );
    expect(copy('<</Dest [3 0 R /Fit]>>')).toBe('\n<</Dest [103 0 R /Fit]>>\n');
  });

  it('leaves streams and destinations written as names or strings to the parsed copy', () => {
    expect(copy('<</Length 3>>\nstream\nabc\nendstream')).toBeUndefined();
    expect(copy('<</Dest /chapter-1>>')).toBeUndefined();
    expect(copy('<</A <</S /GoTo /D (chapter-1)>>>>')).toBeUndefined();
  });

  it('leaves to the parsed copy, which refuses it, any text the parser would not read as one object', () => {
    // A bit flip in a structure element: the parser stops at the brace, so the object must not be copied.
    expect(copy('<</Type /Str}ctElem /S /LBody /K [20 0 R]>>')).toBeUndefined();
    for (const body of [
      '<</Type /StructElem K 1>>', // a key without its slash
      '<</A>>', // a key without a value
      '<</A 1 2>>', // two values for one key
      '<</A [1 2>>', // an array closed as a dictionary
      '<</A 1]>>', // an array closed that never opened
      '<</A (x))>>', // a parenthesis closing nothing
      '<</A 1> >>', // a lone angle bracket
      '<</A {1}>>', // braces belong to PostScript functions, in streams
      '<</A 1>> 2', // more than one value before endobj
      '<</A [1 2]', // the end comes before the dictionary closes
      '',
    ])
      expect(copy(body), body).toBeUndefined();
    expect(copy(`${'['.repeat(300)}${']'.repeat(300)}`)).toBeUndefined();
    // What the parser reads still copies: keywords, empty containers, comments between a key and its value.
    expect(copy('<</A true /B [] /C <<>> /E % note\n null>>')).toBe('\n<</A true /B [] /C <<>> /E % note\n null>>\n');
    expect(copy('42')).toBe('\n42\n');
  });
});
