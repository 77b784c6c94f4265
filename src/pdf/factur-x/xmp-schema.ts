/**
 * The Factur-X XMP extension schema: the four `fx:` properties a Factur-X reader looks for, with their
 * PDF/A extension schema description (PDF/A-3 accepts no XMP property it cannot find described).
 */
import type { XmpExtensionSchema } from '../profiles/types.js';
import { FACTUR_X_FILE_NAME, type FacturXLevel } from './levels.js';

/** The namespace Factur-X 1.0 fixes for its XMP properties (the trailing `#` belongs to it). */
export const FACTUR_X_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

/** The version of the Factur-X XMP schema (`fx:Version`); 1.0 for every Factur-X 1.0x release. */
export const FACTUR_X_XMP_VERSION = '1.0';

/** The schema for an invoice at `level`, with its values. */
export function facturXSchema(level: FacturXLevel): XmpExtensionSchema {
  const property = (name: string, description: string, value: string) => ({
    name,
    valueType: 'Text',
    category: 'external' as const,
    description,
    value,
  });
  return {
    namespaceUri: FACTUR_X_NAMESPACE,
    prefix: 'fx',
    schema: 'Factur-X PDFA Extension Schema',
    properties: [
      property('DocumentFileName', 'The name of the embedded XML invoice file', FACTUR_X_FILE_NAME),
      property('DocumentType', 'INVOICE', 'INVOICE'),
      property('Version', 'The version of the Factur-X XML schema', FACTUR_X_XMP_VERSION),
      property('ConformanceLevel', 'The conformance level of the embedded Factur-X data', level),
    ],
  };
}
