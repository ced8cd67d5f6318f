// The location codes records' meta uses for geo balancing: continents, countries (ISO 3166-1 alpha-2)
// and regions (ISO 3166-2 subdivisions), keyed in lower case as meta writes them, each with its names.
// Country names come from the runtime's ICU data; continent and region names are written here. The
// region list covers Germany, France and the United States.

export interface Translations {
  names: Record<string, string>;
}

const CONTINENTS: Record<string, string> = {
  af: 'Africa',
  an: 'Antarctica',
  as: 'Asia',
  eu: 'Europe',
  na: 'North America',
  oc: 'Oceania',
  sa: 'South America',
};

// The 249 officially assigned ISO 3166-1 alpha-2 codes.
const COUNTRY_CODES = `ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs bt bv bw by bz
ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg eh er es et fi fj fk fm fo fr ga gb gd ge gf gg gh gi
gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li
lk lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf
pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl
tm tn to tr tt tv tw tz ua ug um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw`.split(/\s+/);

const REGIONS: Record<string, string> = {
  'de-bw': 'Baden-Württemberg',
  'de-by': 'Bavaria',
  'de-be': 'Berlin',
  'de-bb': 'Brandenburg',
  'de-hb': 'Bremen',
  'de-hh': 'Hamburg',
  'de-he': 'Hesse',
  'de-mv': 'Mecklenburg-Western Pomerania',
  'de-ni': 'Lower Saxony',
  'de-nw': 'North Rhine-Westphalia',
  'de-rp': 'Rhineland-Palatinate',
  'de-sl': 'Saarland',
  'de-sn': 'Saxony',
  'de-st': 'Saxony-Anhalt',
  'de-sh': 'Schleswig-Holstein',
  'de-th': 'Thuringia',
  'fr-ara': 'Auvergne-Rhône-Alpes',
  'fr-bfc': 'Bourgogne-Franche-Comté',
  'fr-bre': 'Brittany',
  'fr-cvl': 'Centre-Val de Loire',
  'fr-20r': 'Corsica',
  'fr-ges': 'Grand Est',
  'fr-hdf': 'Hauts-de-France',
  'fr-idf': 'Île-de-France',
  'fr-nor': 'Normandy',
  'fr-naq': 'Nouvelle-Aquitaine',
  'fr-occ': 'Occitania',
  'fr-pdl': 'Pays de la Loire',
  'fr-pac': "Provence-Alpes-Côte d'Azur",
  'us-al': 'Alabama',
  'us-ak': 'Alaska',
  'us-az': 'Arizona',
  'us-ar': 'Arkansas',
  'us-ca': 'California',
  'us-co': 'Colorado',
  'us-ct': 'Connecticut',
  'us-de': 'Delaware',
  'us-dc': 'District of Columbia',
  'us-fl': 'Florida',
  'us-ga': 'Georgia',
  'us-hi': 'Hawaii',
  'us-id': 'Idaho',
  'us-il': 'Illinois',
  'us-in': 'Indiana',
  'us-ia': 'Iowa',
  'us-ks': 'Kansas',
  'us-ky': 'Kentucky',
  'us-la': 'Louisiana',
  'us-me': 'Maine',
  'us-md': 'Maryland',
  'us-ma': 'Massachusetts',
  'us-mi': 'Michigan',
  'us-mn': 'Minnesota',
  'us-ms': 'Mississippi',
  'us-mo': 'Missouri',
  'us-mt': 'Montana',
  'us-ne': 'Nebraska',
  'us-nv': 'Nevada',
  'us-nh': 'New Hampshire',
  'us-nj': 'New Jersey',
  'us-nm': 'New Mexico',
  'us-ny': 'New York',
  'us-nc': 'North Carolina',
  'us-nd': 'North Dakota',
  'us-oh': 'Ohio',
  'us-ok': 'Oklahoma',
  'us-or': 'Oregon',
  'us-pa': 'Pennsylvania',
  'us-ri': 'Rhode Island',
  'us-sc': 'South Carolina',
  'us-sd': 'South Dakota',
  'us-tn': 'Tennessee',
  'us-tx': 'Texas',
  'us-ut': 'Utah',
  'us-vt': 'Vermont',
  'us-va': 'Virginia',
  'us-wa': 'Washington',
  'us-wv': 'West Virginia',
  'us-wi': 'Wisconsin',
  'us-wy': 'Wyoming',
};

const english = (names: Record<string, string>) => Object.fromEntries(Object.entries(names).map(([code, name]) => [code, { names: { en: name } }]));

function countries(): Record<string, Translations> {
  const display = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  return Object.fromEntries(COUNTRY_CODES.map((code) => [code, { names: { en: display.of(code.toUpperCase()) ?? code.toUpperCase() } }]));
}

let cached: { continents: Record<string, Translations>; countries: Record<string, Translations>; regions: Record<string, Translations> } | undefined;

/** Every location list, built once. */
export function locations() {
  cached ??= { continents: english(CONTINENTS), countries: countries(), regions: english(REGIONS) };
  return cached;
}
