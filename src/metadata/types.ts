/** The eight fields the metadata service returns; every one is always present, null when absent. */
export interface Metadata {
  title: string | null;
  description: string | null;
  og_title: string | null;
  og_description: string | null;
  og_image: string | null;
  og_url: string | null;
  canonical_url: string | null;
  favicon_url: string | null;
}

/** Field names in response order. */
export const METADATA_FIELDS = [
  'title',
  'description',
  'og_title',
  'og_description',
  'og_image',
  'og_url',
  'canonical_url',
  'favicon_url',
] as const satisfies ReadonlyArray<keyof Metadata>;
