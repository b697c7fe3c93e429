import type postgres from "postgres";

/**
 * postgres.js prepares the statements of its tagged templates, but drizzle
 * sends every query through `sql.unsafe(text, params, { prepare })` with
 * prepare false unless the query was given a name with `.prepare(name)`.
 * An unprepared statement with parameters costs two round trips on
 * postgres.js (Parse + Describe, wait for the parameter types, then Bind +
 * Execute) and a parse and plan on the server every time. This wraps the
 * client drizzle is given, transactions and savepoints included, so every
 * statement with parameters is prepared once per connection (postgres.js
 * keys them by their text and types) and then costs one Bind + Execute.
 *
 * Turned off as a whole by `?prepare=false` on DATABASE_URL (postgres.js
 * reads it; needed behind a pooler in transaction mode, such as PgBouncer
 * before 1.21): the statement-level option is ANDed with that one.
 * Statements without parameters go through the simple protocol either way.
 * Prepared statements live as long as their connection, which postgres.js
 * recycles after its max_lifetime (30 to 60 minutes), so the set per
 * connection stays bounded by the distinct statement texts sent in that time.
 */
type Client = postgres.Sql;
type UnsafeOptions = Parameters<Client["unsafe"]>[2];

export function preparingStatements<T extends Client>(client: T): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (key === "unsafe") {
        const unsafe = value as Client["unsafe"];
        return (query: string, params?: postgres.ParameterOrJSON<never>[], options?: UnsafeOptions) => unsafe(query, params, { ...options, prepare: true });
      }
      if (key === "begin" || key === "savepoint") {
        const open = value as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const body = args.pop() as (tx: Client) => unknown;
          return open(...args, (tx: Client) => body(preparingStatements(tx)));
        };
      }
      return value;
    },
  });
}
