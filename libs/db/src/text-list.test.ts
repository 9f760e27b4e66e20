import { describe, expect, it } from 'vitest';
import { LINE_SEPARATOR, textList, UNIT_SEPARATOR } from './text-list.ts';

describe('textList', () => {
  it('joins a column with its separator, a null as the empty string that SQL reads back as null', () => {
    expect(textList(['a1', null, 3, true])).toBe('a1,,3,true');
    expect(textList(['dir/a b.txt', 'c,d.bin'], UNIT_SEPARATOR)).toBe('dir/a b.txt\u001fc,d.bin');
  });

  it.each([
    [UNIT_SEPARATOR, 'a\u001fb'],
    [LINE_SEPARATOR, 'a\nb'],
  ])('refuses a free-text value holding its separator %j rather than splitting it in two', (separator, value) => {
    expect(() => textList(['fine', value], separator)).toThrow(/contains its separator/);
  });
});
