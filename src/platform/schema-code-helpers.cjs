// The packages' runtime helpers the build's compiled schema code requires (see RUNTIME_HELPERS in
// schema-code.ts), as `require` gives them. CommonJS, so that each is exactly what the code's own
// `require` would return, bundled or not (ES module interop differs between Node, esbuild and Vitest).
module.exports = {
  'ajv/dist/runtime/ucs2length': require('ajv/dist/runtime/ucs2length'),
  'ajv-formats/dist/formats': require('ajv-formats/dist/formats'),
  'fast-json-stringify/lib/serializer': require('fast-json-stringify/lib/serializer'),
};
