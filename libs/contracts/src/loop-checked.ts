import { z } from 'zod';

/**
 * An array of up to 25,000 entries checked by one loop when every entry is plainly well formed:
 * zod's parse of each entry's schema costs microseconds an entry, tens of milliseconds a large
 * batch at every end that reads it. `wellFormed` answers the entries as `element` would output them,
 * or undefined for anything it does not accept; those arrays are parsed again entry by entry, so the
 * answer and its issues are exactly those of z.array(element).
 */
export function loopChecked<T>(array: z.ZodArray<z.ZodUnknown>, element: z.ZodType<T>, wellFormed: (values: readonly unknown[]) => T[] | undefined) {
  return array.transform((values, ctx): T[] => {
    const entries = wellFormed(values);
    if (entries) return entries;
    const strict = z.array(element).safeParse(values);
    if (strict.success) return strict.data;
    for (const issue of strict.error.issues) ctx.issues.push({ ...issue, input: undefined });
    return z.NEVER;
  });
}
