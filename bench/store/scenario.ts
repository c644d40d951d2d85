// Hooks the store benchmark (bench/store/main.ts, a process of its own with its own dev server) into
// `npm run bench`: the full plan runs it after the other scenarios; --quick never does (1 GiB).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export async function runStoreBench(log: (line: string) => void): Promise<void> {
  log('store: 1 GiB video from the sandbox to a local-folder VIDEO_STORE (bench/store/main.ts)');
  const child = spawn(
    process.execPath,
    ['--conditions=review-video-source', '--import', 'tsx', fileURLToPath(new URL('./main.ts', import.meta.url))],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  child.stdout.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line.trim()) log(`  ${line.trim()}`);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`bench/store/main.ts exited with ${code}`);
}
