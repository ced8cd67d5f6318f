// Cloud: projects and regions, every modelled resource as a table with its status, tasks followed live,
// and creation and deletion of networks, subnets, volumes and instances.
import { AccountView } from './account';
import { useCloudContext } from './context';
import { ResourceView, RESOURCES } from './resources';
import { TasksView } from './tasks';

export default function CloudView(props: { tab: string }) {
  const context = useCloudContext();
  const resource = RESOURCES.find((r) => r.id === props.tab);
  return (
    <div class="stack">
      <div class="toolbar" role="group" aria-label="Project and region">
        <label class="inline">
          <span>Project</span>
          <select name="project" value={String(context.projectId ?? '')} onChange={(e) => context.update({ project: (e.target as HTMLSelectElement).value })}>
            {(context.projects.data?.results ?? []).map((p) => (
              <option value={String(p.id)}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          <span>Region</span>
          <select name="region" value={String(context.regionId ?? '')} onChange={(e) => context.update({ region: (e.target as HTMLSelectElement).value })}>
            {(context.regions.data?.results ?? []).map((r) => (
              <option value={String(r.id)}>
                {r.display_name} ({r.id}){r.state === 'ACTIVE' ? '' : `, ${r.state}`}
              </option>
            ))}
          </select>
        </label>
      </div>
      {resource ? (
        <ResourceView key={resource.id} resource={resource} context={context} />
      ) : props.tab === 'tasks' ? (
        <TasksView context={context} />
      ) : (
        <AccountView context={context} />
      )}
    </div>
  );
}
