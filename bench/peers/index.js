// The peer libraries, imported from here so Node resolves them in bench/peers/node_modules.
export { default as createMetascraper } from 'metascraper';
export { default as metascraperDescription } from 'metascraper-description';
export { default as metascraperImage } from 'metascraper-image';
export { default as metascraperTitle } from 'metascraper-title';
export { default as metascraperUrl } from 'metascraper-url';
export { default as ogs } from 'open-graph-scraper';
