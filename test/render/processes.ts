/**
 * The Chromium processes a test started, found the way an operator would: in /proc.
 */
import fs from 'node:fs';

/** The Chromium main processes this test process launched (children whose command is chromium). */
export function chromiumChildren(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chrom');
      } catch {
        return false;
      }
    })
    .map(Number);
}
