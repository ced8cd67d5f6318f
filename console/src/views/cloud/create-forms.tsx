// Create forms of the cloud resources. Each sends what the official clients send and shows the API's
// field errors next to the field they name.
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { useAction, useResource } from '../../hooks';
import { ErrorNote, Field } from '../../ui/widgets';
import type { CloudContext, List, TaskIds } from './context';

interface FormProps {
  context: CloudContext;
  onCreated: (answer: TaskIds) => void;
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

function CreateForm(props: {
  title: string;
  fields: string[];
  action: ReturnType<typeof useAction<[], TaskIds | undefined>>;
  children: preact.ComponentChildren;
}) {
  return (
    // The API's rules are the ones shown (next to their fields), not a second copy in the browser.
    <form
      class="card"
      noValidate
      aria-label={props.title}
      onSubmit={(event) => {
        event.preventDefault();
        void props.action.run();
      }}
    >
      <h2>{props.title}</h2>
      <div class="form-grid">{props.children}</div>
      <ErrorNote error={props.action.error} shown={props.fields} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={props.action.pending}>
          {props.action.pending ? 'Creating…' : 'Create'}
        </button>
      </div>
    </form>
  );
}

function useCreate(props: FormProps, base: string, body: () => unknown) {
  return useAction(async () => {
    const path = props.context.scoped(base);
    if (!path) return undefined;
    const answer = await call<TaskIds>(path, { method: 'POST', body: body() });
    props.onCreated(answer);
    return answer;
  });
}

export function NetworkForm(props: FormProps) {
  const [name, setName] = useState('');
  const [type, setType] = useState('vxlan');
  const [router, setRouter] = useState(true);
  const action = useCreate(props, '/cloud/v1/networks', () => ({ name, type, create_router: router }));
  return (
    <CreateForm title="New network" fields={['name', 'type', 'create_router']} action={action}>
      <Field label="Name" error={action.error} path="name">
        <input name="name" value={name} onInput={(e) => setName(value(e))} autoFocus />
      </Field>
      <Field label="Type" error={action.error} path="type">
        <select name="type" value={type} onChange={(e) => setType(value(e))}>
          <option value="vxlan">vxlan</option>
          <option value="vlan">vlan</option>
        </select>
      </Field>
      <Field label="Router" error={action.error} path="create_router">
        <label class="inline">
          <input type="checkbox" name="create_router" checked={router} onChange={(e) => setRouter((e.target as HTMLInputElement).checked)} /> create a router
        </label>
      </Field>
    </CreateForm>
  );
}

interface Named {
  id: string;
  name: string;
  task_id?: string | null;
  network_id?: string;
}

function useNamed(context: CloudContext, base: string) {
  const path = context.scoped(base);
  return useResource(path, (signal) => call<List<Named>>(path as string, { signal })).data?.results ?? [];
}

export function SubnetForm(props: FormProps) {
  const networks = useNamed(props.context, '/cloud/v1/networks');
  const [name, setName] = useState('');
  const [network, setNetwork] = useState('');
  const [cidr, setCidr] = useState('10.0.1.0/24');
  const networkId = network || networks[0]?.id || '';
  const action = useCreate(props, '/cloud/v1/subnets', () => ({ name, network_id: networkId, cidr }));
  return (
    <CreateForm title="New subnet" fields={['name', 'network_id', 'cidr']} action={action}>
      <Field label="Name" error={action.error} path="name">
        <input name="name" value={name} onInput={(e) => setName(value(e))} autoFocus />
      </Field>
      <Field label="Network" error={action.error} path="network_id">
        <select name="network_id" value={networkId} onChange={(e) => setNetwork(value(e))}>
          {networks.map((n) => (
            <option value={n.id}>
              {n.name}
              {n.task_id ? ' (being created)' : ''}
            </option>
          ))}
        </select>
      </Field>
      <Field label="CIDR" error={action.error} path="cidr">
        <input name="cidr" value={cidr} onInput={(e) => setCidr(value(e))} />
      </Field>
    </CreateForm>
  );
}

export function VolumeForm(props: FormProps) {
  const types = props.context.region?.available_volume_types ?? ['standard'];
  const [name, setName] = useState('');
  const [size, setSize] = useState('10');
  const [type, setType] = useState('');
  const action = useCreate(props, '/cloud/v1/volumes', () => ({ source: 'new-volume', name, size: Number(size), type_name: type || types[0] }));
  return (
    <CreateForm title="New volume" fields={['name', 'size', 'type_name']} action={action}>
      <Field label="Name" error={action.error} path="name">
        <input name="name" value={name} onInput={(e) => setName(value(e))} autoFocus />
      </Field>
      <Field label="Size (GiB)" error={action.error} path="size">
        <input name="size" type="number" min={1} value={size} onInput={(e) => setSize(value(e))} />
      </Field>
      <Field label="Type" error={action.error} path="type_name">
        <select name="type_name" value={type || types[0]} onChange={(e) => setType(value(e))}>
          {types.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </Field>
    </CreateForm>
  );
}

interface Flavor {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
  disabled: boolean;
}

export function InstanceForm(props: FormProps) {
  const flavorsPath = props.context.scoped('/cloud/v1/flavors');
  const flavors = useResource(flavorsPath, (signal) => call<List<Flavor>>(flavorsPath as string, { signal })).data?.results ?? [];
  const subnets = useNamed(props.context, '/cloud/v1/subnets');
  const [name, setName] = useState('');
  const [flavor, setFlavor] = useState('');
  const [size, setSize] = useState('20');
  const [subnet, setSubnet] = useState('external');
  const chosen = subnets.find((s) => s.id === subnet);
  const action = useCreate(props, '/cloud/v2/instances', () => ({
    name,
    flavor: flavor || flavors[0]?.flavor_id,
    volumes: [{ source: 'new-volume', size: Number(size) }],
    interfaces: [chosen ? { type: 'subnet', network_id: chosen.network_id, subnet_id: chosen.id } : { type: 'external' }],
  }));
  return (
    <CreateForm title="New instance" fields={['name', 'flavor', 'volumes', 'interfaces']} action={action}>
      <Field label="Name" error={action.error} path="name">
        <input name="name" value={name} onInput={(e) => setName(value(e))} autoFocus />
      </Field>
      <Field label="Flavor" error={action.error} path="flavor">
        <select name="flavor" value={flavor || flavors[0]?.flavor_id} onChange={(e) => setFlavor(value(e))}>
          {flavors.map((f) => (
            <option value={f.flavor_id} disabled={f.disabled}>
              {f.flavor_name} ({f.vcpus} vCPU, {f.ram / 1024} GiB)
            </option>
          ))}
        </select>
      </Field>
      <Field label="Boot volume (GiB)" error={action.error} path="volumes">
        <input name="size" type="number" min={1} value={size} onInput={(e) => setSize(value(e))} />
      </Field>
      <Field label="Network interface" error={action.error} path="interfaces">
        <select name="interface" value={subnet} onChange={(e) => setSubnet(value(e))}>
          <option value="external">external (public IP)</option>
          {subnets.map((s) => (
            <option value={s.id}>subnet {s.name}</option>
          ))}
        </select>
      </Field>
    </CreateForm>
  );
}
