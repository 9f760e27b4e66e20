// k6 provides `console` in every context, but @types/k6 leaves it to the DOM or Node typings, and
// neither belongs in a k6 script's program.
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};
