// The pickers an RRset may list (the reference's picker types) with a label each, and a few ready-made
// picker lists. How the DNS listener applies them: resolver/pickers.ts.
import { PICKER_TYPES, type PickerType } from '../rrsets/schemas.js';

const LABELS: Record<PickerType, string> = {
  geodns: 'Records whose location meta matches the client (ip, asn, country, continent), or all (strict: none)',
  asn: 'Records whose asn meta holds the client network',
  country: "Records whose countries meta holds the client's country",
  continent: "Records whose continents meta holds the client's continent",
  region: "Records whose regions meta holds the client's region",
  ip: "Records whose ip meta network holds the client's address",
  geodistance: 'Nearest records first, by latlong meta',
  weighted_shuffle: 'Random order weighted by the weight meta (default 50)',
  default: 'Records marked default in their meta',
  first_n: 'The first records only (limit)',
};

export const PICKERS = PICKER_TYPES.map((name) => ({ name, label: LABELS[name] }));

const picked = (...names: PickerType[]) => names.map((name) => ({ name, label: LABELS[name] }));

export const PRESETS: Record<string, { name: string; label: string }[]> = {
  geodns: picked('geodns', 'default', 'first_n'),
  nearest: picked('geodistance', 'first_n'),
  weighted: picked('weighted_shuffle', 'first_n'),
  networks: picked('ip', 'asn', 'default', 'first_n'),
};
