/** The rate-limit window in words, for messages and pages: "minute" at the default 60 s, else "N s". */
export function windowUnit(windowS: number): string {
  if (windowS === 60) return 'minute';
  if (windowS === 3600) return 'hour';
  return `${windowS} s`;
}
