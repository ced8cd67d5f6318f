// The project and region every cloud view works in, kept in the URL (`project`, `region`).
import { useLocation } from 'preact-iso';
import { call, queryString } from '../../api';
import { useResource } from '../../hooks';

export interface Project {
  id: number;
  name: string;
  description: string | null;
  is_default: boolean;
  state: string;
  created_at: string;
}

export interface Region {
  id: number;
  display_name: string;
  state: string;
  access_level: string;
  country: string;
  zone: string;
  has_kvm: boolean;
  has_k8s: boolean;
  has_baremetal: boolean;
  available_volume_types: string[];
}

export interface List<T> {
  count: number;
  results: T[];
}

export interface TaskIds {
  tasks: string[];
  id?: string;
}

export function useCloudContext() {
  const { query, path, route } = useLocation();
  const projects = useResource('projects', (signal) => call<List<Project>>('/cloud/v1/projects', { signal }));
  const regions = useResource('regions', (signal) => call<List<Region>>('/cloud/v1/regions', { signal }));
  const fallbackProject = projects.data?.results.find((p) => p.is_default) ?? projects.data?.results[0];
  const fallbackRegion = regions.data?.results.find((r) => r.state === 'ACTIVE' && r.has_kvm) ?? regions.data?.results[0];
  const projectId = Number(query.project ?? fallbackProject?.id ?? 0) || undefined;
  const regionId = Number(query.region ?? fallbackRegion?.id ?? 0) || undefined;
  return {
    query,
    projects,
    regions,
    projectId,
    regionId,
    region: regions.data?.results.find((r) => r.id === regionId),
    /** `/base/{project}/{region}` of the current context. */
    scoped: (base: string) => (projectId && regionId ? `${base}/${projectId}/${regionId}` : null),
    update: (changes: Record<string, string | undefined>) => route(path + queryString({ ...query, ...changes })),
    hrefTo: (tab: string, extra: Record<string, string> = {}) =>
      `/console/cloud/${tab}${queryString({ project: query.project, region: query.region, ...extra })}`,
  };
}

export type CloudContext = ReturnType<typeof useCloudContext>;
