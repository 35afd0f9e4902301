// The logging this folder needs: any object with these four methods (the project's
// observability logger fits). Nothing is logged when none is given.
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

const noop = (): void => undefined;
export const silentLogger: Logger = { error: noop, warn: noop, info: noop, debug: noop };
