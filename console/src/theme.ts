// Light, dark, or the system's choice (the default); kept in localStorage (not a secret).
export type Theme = 'system' | 'light' | 'dark';
const KEY = 'edgeplane.console.theme';

export function savedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  localStorage.setItem(KEY, theme);
}

export const nextTheme = (theme: Theme): Theme => (({ system: 'light', light: 'dark', dark: 'system' }) as const)[theme];
