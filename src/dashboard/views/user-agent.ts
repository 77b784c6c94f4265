// Order matters: Edge and Opera say "Chrome" too, Chrome says "Safari", every browser says "Mozilla".
const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/(?:OPR|Opera)\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/^curl\/(\d+)/, 'curl'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Windows/, 'Windows'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Firefox 128 on Linux" from a User-Agent header; the raw text (shortened) when nothing matches. */
export function describeAgent(agent: string | null): string {
  if (!agent) return 'Unknown browser';
  let browser: { name: string; version: string | undefined } | undefined;
  for (const [re, name] of BROWSERS) {
    const match = re.exec(agent);
    if (match) {
      browser = { name, version: match[1] };
      break;
    }
  }
  const system = SYSTEMS.find(([re]) => re.test(agent))?.[1];
  if (!browser) return agent.length > 60 ? `${agent.slice(0, 60)}…` : agent;
  return `${browser.name} ${browser.version}${system ? ` on ${system}` : ''}`;
}
