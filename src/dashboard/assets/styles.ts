/**
 * The dashboard's whole stylesheet, served from the app (no CDN). Colours meet WCAG AA contrast.
 * Its parts are kept by what they style and joined in one fixed order, which the cascade depends on (of two
 * equally specific rules the later wins); each part opens with a line break and ends at its last rule, so
 * the join is one stylesheet.
 */
import { ACCOUNT_STYLES } from './account-styles.js';
import { ASSEMBLY_STYLES } from './assembly-styles.js';
import { BASE_STYLES } from './base-styles.js';
import { CERTIFICATE_STYLES } from './certificate-styles.js';
import { COMPONENT_STYLES } from './component-styles.js';
import { CORE_PAGE_STYLES } from './core-page-styles.js';
import { NARROW_SCREEN_STYLES } from './narrow-screen-styles.js';
import { RENDER_STYLES } from './render-styles.js';

export const STYLES =
  BASE_STYLES +
  COMPONENT_STYLES +
  CORE_PAGE_STYLES +
  NARROW_SCREEN_STYLES +
  ACCOUNT_STYLES +
  RENDER_STYLES +
  CERTIFICATE_STYLES +
  ASSEMBLY_STYLES;
