const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(size: number): string {
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}

export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** The folders directly under `prefix` and the files right in it, from the paths at any depth under it loaded so far. */
export function folderView<T extends { path: string }>(prefix: string, files: T[]): { folders: string[]; files: T[] } {
  const folders = new Set<string>();
  const here: T[] = [];
  for (const file of files) {
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) here.push(file);
    else folders.add(prefix + rest.slice(0, slash + 1));
  }
  return { folders: [...folders].sort(), files: here };
}

/** A folder path as the tree's `prefix` takes it: no leading slash, one trailing slash; empty for the root. */
export function folderPrefix(path: string): string {
  const trimmed = path.trim().replace(/^\/+|\/+$/g, '');
  return trimmed ? `${trimmed}/` : '';
}
