/** Each runtime helper's exports, by the name the compiled code requires it by. */
declare const helpers: Readonly<Record<string, unknown>>;
export = helpers;
