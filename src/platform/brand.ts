// Edgeplane's own marks, drawn here (no image files to ship or find at run time): the icon for browser
// tabs and the word mark of the API reference's top bar.

/** A square icon: a paper plane over an edge line. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="14" fill="#0f3d5c"/>
<path d="M12 33 52 14 41 50 31 39 23 47 24 36Z" fill="#f5b83d"/>
<path d="M24 36 52 14 31 39" fill="#e0982a"/>
<path d="M8 56h48" stroke="#7fc4e8" stroke-width="3" stroke-linecap="round"/>
</svg>`;

/** The icon and the name, light on the dark top bar of the API reference. */
export const WORDMARK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 260 64">
<g transform="translate(4 4) scale(0.875)">${ICON_SVG.replace(/<\/?svg[^>]*>/g, '')}</g>
<text x="70" y="43" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="32" font-weight="600" fill="#ffffff">Edgeplane</text>
</svg>`;
