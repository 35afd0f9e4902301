// The one logger shape: what every folder logs to. internal/shared/observability's createLogger makes the real one
// (JSON lines); a folder that is given none logs nothing (`noopLogger`).

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (later fields win over earlier ones). */
  child(fields: LogFields): Logger;
}

/** Writes nothing; its children write nothing either. */
export const noopLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => noopLogger,
};
