import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { commitMessage } from './option-values.ts';

describe('-m, the commit message', () => {
  it('is trimmed, and refused before any byte moves when the server would refuse it after the uploads', () => {
    expect(commitMessage('  Forest lighting \n')).toBe('Forest lighting');
    for (const bad of ['', '   ', 'x'.repeat(10_001), 'a\u0000b', 'half \ud800 pair'])
      expect(() => commitMessage(bad), JSON.stringify(bad.slice(0, 20))).toThrow(InvalidArgumentError);
    expect(commitMessage('emoji 🎮 ok')).toBe('emoji 🎮 ok');
  });
});
