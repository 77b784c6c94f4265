/**
 * Documents that attack their own render report the way a security review did: they look for every
 * global of the window whose name or symbol mentions the report or Pageworks (own properties, enumerable
 * or not, and symbols) and rewrite what they find, one level deep and in its arrays.
 */

/** The one real problem each attack document has: a script error thrown before the attack runs. */
export const GENUINE = 'genuine failure';

/**
 * What an attack writes: `text` and `huge` replace numbers, `entries` pushes forged entries of the
 * state's own shapes, `shapes` pushes what is no entry at all, `strings` pushes 300 MB.
 */
export type Attack = 'text' | 'huge' | 'entries' | 'shapes' | 'strings';

/** The script that finds the report's globals and calls `mutate(value)` on each object among them. */
const FIND = `
  const names = [...Object.getOwnPropertyNames(window), ...Object.getOwnPropertySymbols(window)];
  const found = [];
  for (const name of names) {
    const label = typeof name === 'symbol' ? String(name.description) : name;
    if (!/report|pageworks/i.test(label) || label === 'pageworksReady') continue;
    let value;
    try { value = window[name]; } catch { continue; }
    if (value !== null && typeof value === 'object') found.push(value);
  }
`;

const MUTATE: Record<Attack, string> = {
  text: `(state) => {
    for (const k of Object.keys(state)) if (typeof state[k] === 'number') state[k] = 'abc';
  }`,
  huge: `(state) => {
    for (const k of Object.keys(state)) if (typeof state[k] === 'number') state[k] = 1e308;
  }`,
  entries: `(state) => {
    for (const k of Object.keys(state)) {
      if (!Array.isArray(state[k])) continue;
      for (let i = 0; i < 5; i++) state[k].push([1e308, 'FORGED ' + i], { family: 'FORGED', urls: ['http://forged.test/'] });
      state[k].push({ kind: 'resource_blocked', url: 'FORGED', reason: 'scheme', message: 'FORGED' });
    }
  }`,
  shapes: `(state) => {
    for (const k of Object.keys(state)) {
      if (typeof state[k] === 'number') state[k] = { valueOf: () => 7, FORGED: true };
      if (Array.isArray(state[k])) state[k].push([0, 12345], 12345, null, { family: 12345, urls: 'FORGED' }, [[['FORGED']]], { kind: 'truncated', dropped: -1 });
    }
  }`,
  strings: `(state) => {
    const big = 'FORGED'.padEnd(100000, 'x');
    for (const k of Object.keys(state)) {
      if (Array.isArray(state[k])) for (let i = 0; i < 1500; i++) state[k].push([0, big], { family: big, urls: [big] });
    }
  }`,
};

/**
 * What the `strings` attack also does beyond the report's globals: cuts made with the page's own
 * String.prototype.slice do nothing, and every text the render reads is 100 KB (the title, 3,000 errors).
 */
const EVERYWHERE: Partial<Record<Attack, string>> = {
  strings: `
    const big = 'FORGED'.padEnd(100000, 'x');
    String.prototype.slice = function () { return String(this); };
    String.prototype.substring = String.prototype.slice;
    document.title = big;
    for (let i = 0; i < 3000; i++) setTimeout(() => { throw new Error(big); });
  `,
};

/** A document that throws GENUINE once, rewrites the report state it found with `attack`, and prints a line of text. */
export function attackDocument(attack: Attack): string {
  return `<h1>Attack ${attack}</h1><script>
    setTimeout(() => { throw new Error(${JSON.stringify(GENUINE)}); });
    const attack = () => {
      ${FIND}
      found.forEach(${MUTATE[attack]});
      document.body.append('found ' + found.length);
    };
    attack();
    ${EVERYWHERE[attack] ?? ''}
    window.pageworksReady = new Promise((resolve) => setTimeout(resolve, 60));
  </script>`;
}
