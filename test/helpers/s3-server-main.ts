/**
 * `node --import tsx test/helpers/s3-server-main.ts [bucket]`: s3rver in a process of its own (see
 * startS3ServerProcess). Prints `{"endpoint","bucket"}` as one line once it listens; SIGTERM, or the end
 * of its stdin (the parent gone), stops it and removes its files.
 */
import { startS3Server } from './s3-server.js';

const server = await startS3Server(process.argv[2]);
process.stdout.write(`${JSON.stringify({ endpoint: server.endpoint, bucket: server.bucket })}\n`);
let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGTERM', stop);
// The parent holds the other end of stdin: it closes when the parent exits, even when it was killed.
process.stdin.once('end', stop);
process.stdin.resume();
