import { describe, expect, it } from 'vitest';
import { attachmentDisposition, fileNameOf } from './content-disposition.ts';

describe('attachmentDisposition', () => {
  it('is a bare attachment when no name is known', () => {
    expect(attachmentDisposition(undefined)).toBe('attachment');
    expect(attachmentDisposition('')).toBe('attachment');
  });

  it('names a plain file in both parameters', () => {
    expect(attachmentDisposition('hero.png')).toBe(`attachment; filename="hero.png"; filename*=UTF-8''hero.png`);
  });

  it('percent-encodes the UTF-8 of any other name, and gives an ASCII fallback', () => {
    expect(attachmentDisposition('Ölfass (final)*.psd')).toBe(`attachment; filename="_lfass (final)*.psd"; filename*=UTF-8''%C3%96lfass%20%28final%29%2A.psd`);
    expect(attachmentDisposition('曲.wav')).toBe(`attachment; filename="_.wav"; filename*=UTF-8''%E6%9B%B2.wav`);
  });

  it('lets nothing in a name end a parameter, or the header', () => {
    const value = attachmentDisposition('a"; filename="evil.html\\%41\r\nX-Injected: 1;\'.txt');
    expect(value).not.toMatch(/[\r\n]/);
    const [, fallback, encoded] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/.exec(value) ?? [];
    expect(fallback).toBe("a_; filename=_evil.html__41__X-Injected: 1;'.txt");
    expect(decodeURIComponent(encoded)).toBe('a"; filename="evil.html\\%41\r\nX-Injected: 1;\'.txt');
  });
});

describe('fileNameOf', () => {
  it('is the last segment of a project path', () => {
    expect(fileNameOf('art/heroes/hero.png')).toBe('hero.png');
    expect(fileNameOf('README')).toBe('README');
  });
});
