const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "3 May 2025" (UTC): dates are shown in UTC so every viewer and the usage days agree. */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "3 May 2025, 14:05 UTC". */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${formatDate(ms)}, ${hh}:${mm} UTC`;
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago", then the date. */
export function formatAgo(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  if (s < 3600) return plural(Math.floor(s / 60), 'minute');
  if (s < 86_400) return plural(Math.floor(s / 3600), 'hour');
  if (s < 30 * 86_400) return plural(Math.floor(s / 86_400), 'day');
  return formatDate(ms);
}

/** 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
