/**
 * Parts with optional content (layers), through POST /v1/assemble: a layer a part hides stays hidden in the
 * assembly and in each file of a split, a layer it shows stays shown, and the assembly's layer list holds
 * every part's groups. Checked on poppler's raster: a reader shows every group of a file whose catalog lists
 * none.
 */
import { describe, expect, it } from 'vitest';
import { zipEntries } from '../../src/client/zip-entries.js';
import { PdfFile } from '../../src/pdf/profiles/pdf-file.js';
import { type PdfRaw, type PdfValue, stringText } from '../../src/pdf/profiles/pdf-objects.js';
import { pixel } from '../render/pdf-tools.js';
import { assembleServiceForFile, b64, layeredPdf, qpdfCheck } from './helpers.js';

const BLUE: [number, number, number] = [0, 0, 255];
const RED: [number, number, number] = [255, 0, 0];
const WHITE: [number, number, number] = [255, 255, 255];

/** The colours at the two boxes' centres on `page` (20 dpi: a box of 100 pt is 28 px, its centre 14 px in). */
function boxes(pdf: Buffer, page = 1): { draft: number[]; notes: number[] } {
  return { draft: pixel(pdf, 14, 14, 20, page), notes: pixel(pdf, 14, 56, 20, page) };
}

/** The names of the groups in the file's layer list (/Order), and of those its default configuration hides. */
function layerList(pdf: Buffer): { order: string[]; hidden: string[] } {
  const file = new PdfFile(pdf);
  const properties = file.dict(file.catalog().value.get('OCProperties'));
  const config = file.dict(properties?.get('D'));
  const names = (key: string) =>
    ((file.resolve(config?.get(key)) as PdfValue[] | undefined) ?? []).map((ref) =>
      stringText((file.dict(ref)?.get('Name') as PdfRaw | undefined)?.text ?? '(?)'),
    );
  return { order: names('Order'), hidden: names('OFF') };
}

const service = assembleServiceForFile();

describe('POST /v1/assemble with layered parts', () => {
  const draftHidden = layeredPdf('/OFF [6 0 R] /Order [6 0 R 7 0 R]');
  // Everything off but what /ON names, and no layer list of its own.
  const notesOnly = layeredPdf('/BaseState /OFF /ON [7 0 R]');

  it('the parts are drawn as they say: poppler shows only the groups each one leaves on', () => {
    expect(boxes(draftHidden)).toEqual({ draft: WHITE, notes: RED });
    expect(boxes(notesOnly)).toEqual({ draft: WHITE, notes: RED });
    expect(boxes(layeredPdf('/Order [6 0 R 7 0 R]'))).toEqual({ draft: BLUE, notes: RED });
  });

  it('keeps each layer in the state its part gave it, and lists every part’s layers', async () => {
    const res = await service.assemble({
      parts: [
        { pdf: draftHidden.toString('base64') },
        { pdf: layeredPdf('/Order [6 0 R 7 0 R]').toString('base64') },
        { pdf: notesOnly.toString('base64') },
      ],
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    expect([boxes(pdf, 1), boxes(pdf, 2), boxes(pdf, 3)]).toEqual([
      { draft: WHITE, notes: RED },
      { draft: BLUE, notes: RED },
      { draft: WHITE, notes: RED },
    ]);
    expect(layerList(pdf)).toEqual({
      order: ['Draft', 'Notes', 'Draft', 'Notes', 'Draft', 'Notes'],
      hidden: ['Draft', 'Draft'],
    });
  });

  // Found by the PDF fuzz: a group whose /Type was flipped away was left out of the assembly's list, and a
  // reader shows a group that is not listed; poppler hides it in the part, as listed there.
  it('keeps an untyped group of a part’s list hidden, as readers take it', async () => {
    const untyped = Buffer.from(
      draftHidden.toString('latin1').replace('<< /Type /OCG /Name (Draft) >>', '<< /Name (Draft)            >>'),
      'latin1',
    );
    expect(boxes(untyped)).toEqual({ draft: WHITE, notes: RED });
    const res = await service.assemble({ parts: [{ pdf: b64(untyped) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(boxes(res.rawPayload)).toEqual({ draft: WHITE, notes: RED });
  });

  it('keeps a hidden layer hidden in each file of a split, with a page selection and a password', async () => {
    const res = await service.assemble({
      parts: [{ pdf: draftHidden.toString('base64') }, { pdf: notesOnly.toString('base64'), pages: '1' }],
      split: 'parts',
      protect: { owner_password: 'owner' },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const files = zipEntries(res.rawPayload);
    expect(files).toHaveLength(2);
    for (const { pdf } of files) expect(boxes(pdf)).toEqual({ draft: WHITE, notes: RED });
  });
});
