# The modelled cloud resources end to end through the official Python client (pip install gcore==0.53.0),
# every *_and_poll helper included, against a running Edgeplane (not run by vitest):
#   EDGEPLANE_API_KEY=<key> npm start &   # any task mode; realistic at a high --task-speed exercises polling
#   EDGEPLANE_URL=http://localhost:8080 EDGEPLANE_API_KEY=<key> python3 tests/cloud/official-client.py
# Prints one line per call and exits non-zero when any failed. Use a fresh account: it works in region 76
# of the account's default project and expects it empty.
import os, sys
from gcore import Gcore
import httpx

BASE = os.environ.get('EDGEPLANE_URL', 'http://localhost:8080')
KEY = os.environ['EDGEPLANE_API_KEY']
projects = httpx.get(f'{BASE}/cloud/v1/projects', headers={'Authorization': f'APIKey {KEY}'}).json()
project = projects['results'][0]['id']
images = httpx.get(f'{BASE}/cloud/v1/images/{project}/76', headers={'Authorization': f'APIKey {KEY}'}).json()
ubuntu = [i for i in images['results'] if i['name'] == 'ubuntu-22.04-x64'][0]['id']
c = Gcore(api_key=KEY, base_url=BASE, cloud_project_id=project, cloud_region_id=76, polling_interval_seconds=1)
cloud = c.cloud
results = []
def step(name, fn):
    try:
        out = fn()
        results.append((name, 'ok'))
        return out
    except Exception as e:
        results.append((name, f'FAIL {type(e).__name__}: {str(e)[:300]}'))
        return None

key = step('ssh_keys.create', lambda: cloud.ssh_keys.create(name='py-key'))
step('ssh_keys.list', lambda: list(cloud.ssh_keys.list()))
step('ssh_keys.update', lambda: cloud.ssh_keys.update(ssh_key_id=key.id, shared_in_project=False))
step('ssh_keys.get', lambda: cloud.ssh_keys.get(ssh_key_id=key.id))
net = step('networks.create_and_poll', lambda: cloud.networks.create_and_poll(name='py-net'))
sub = step('subnets.create_and_poll', lambda: cloud.networks.subnets.create_and_poll(name='py-sub', network_id=net.id, cidr='10.50.0.0/24'))
step('networks.update', lambda: cloud.networks.update(network_id=net.id, name='py-net-2', tags={'a': 'b'}))
sg = step('security_groups.create_and_poll', lambda: cloud.security_groups.create_and_poll(name='py-sg', tags={'env': 'dev'}))
rule = step('security_groups.rules.create_and_poll', lambda: cloud.security_groups.rules.create_and_poll(group_id=sg.id, direction='ingress', protocol='tcp', ethertype='IPv4', port_range_min=80, port_range_max=80, remote_ip_prefix='0.0.0.0/0', description='http'))
step('security_groups.update_and_poll(tags)', lambda: cloud.security_groups.update_and_poll(group_id=sg.id, tags={'env': 'prod'}))
step('security_groups.update_and_poll(name)', lambda: cloud.security_groups.update_and_poll(group_id=sg.id, name='py-sg-2'))
rule2 = step('security_groups.rules.replace', lambda: cloud.security_groups.rules.replace(rule_id=rule.id, direction='ingress', protocol='tcp', ethertype='IPv4', port_range_min=443, port_range_max=443, remote_ip_prefix='0.0.0.0/0'))
step('security_groups.rules.delete_and_poll', lambda: cloud.security_groups.rules.delete_and_poll(rule_id=rule2.id, group_id=sg.id))
step('security_groups.list', lambda: list(cloud.security_groups.list()))
step('security_groups.copy', lambda: cloud.security_groups.copy(group_id=sg.id, name='py-sg-copy'))
step('security_groups.revert_to_default', lambda: cloud.security_groups.revert_to_default(group_id=sg.id))
vm = step('instances.create_and_poll', lambda: cloud.instances.create_and_poll(name='py-vm', flavor='g1-standard-1-2', ssh_key_name='py-key', volumes=[{'source': 'image', 'image_id': ubuntu, 'size': 10, 'boot_index': 0}], interfaces=[{'type': 'subnet', 'network_id': net.id, 'subnet_id': sub.id, 'security_groups': [{'id': sg.id}]}]))
step('instances.update', lambda: cloud.instances.update(instance_id=vm.id, name='py-vm-2'))
step('instances.action_and_poll(stop)', lambda: cloud.instances.action_and_poll(instance_id=vm.id, action='stop'))
step('instances.resize_and_poll', lambda: cloud.instances.resize_and_poll(instance_id=vm.id, flavor_id='g1-standard-2-4'))
step('instances.action_and_poll(start)', lambda: cloud.instances.action_and_poll(instance_id=vm.id, action='start'))
step('instances.get_console', lambda: cloud.instances.get_console(instance_id=vm.id))
step('instances.assign_security_group', lambda: cloud.instances.assign_security_group(instance_id=vm.id, name='default'))
step('instances.unassign_security_group', lambda: cloud.instances.unassign_security_group(instance_id=vm.id, name='default'))
step('instances.interfaces.attach_and_poll', lambda: cloud.instances.interfaces.attach_and_poll(instance_id=vm.id, type='external'))
itfs = step('instances.interfaces.list', lambda: list(cloud.instances.interfaces.list(instance_id=vm.id)))
ext = [i for i in (itfs or []) if i.network_details.external]
if ext: step('instances.interfaces.detach_and_poll', lambda: cloud.instances.interfaces.detach_and_poll(instance_id=vm.id, port_id=ext[0].port_id, ip_address=ext[0].ip_assignments[0].ip_address))
port = [i for i in (itfs or []) if not i.network_details.external]
fip = step('floating_ips.create_and_poll', lambda: cloud.floating_ips.create_and_poll())
step('floating_ips.update_and_poll(port)', lambda: cloud.floating_ips.update_and_poll(floating_ip_id=fip.id, port_id=port[0].port_id))
step('floating_ips.update_and_poll(noop)', lambda: cloud.floating_ips.update_and_poll(floating_ip_id=fip.id, port_id=port[0].port_id))
step('floating_ips.list', lambda: list(cloud.floating_ips.list()))
vol = step('volumes.create_and_poll', lambda: cloud.volumes.create_and_poll(name='py-vol', size=5, source='new-volume'))
step('volumes.update', lambda: cloud.volumes.update(volume_id=vol.id, name='py-vol-2', tags={'x': 'y'}))
step('volumes.attach_to_instance_and_poll', lambda: cloud.volumes.attach_to_instance_and_poll(volume_id=vol.id, instance_id=vm.id))
step('volumes.detach_from_instance_and_poll', lambda: cloud.volumes.detach_from_instance_and_poll(volume_id=vol.id, instance_id=vm.id))
step('volumes.resize_and_poll', lambda: cloud.volumes.resize_and_poll(volume_id=vol.id, size=8))
step('volumes.change_type', lambda: cloud.volumes.change_type(volume_id=vol.id, volume_type='ssd_hiiops'))
snap = step('volume_snapshots.create_and_poll', lambda: cloud.volume_snapshots.create_and_poll(name='py-snap', volume_id=vol.id))
step('volume_snapshots.update', lambda: cloud.volume_snapshots.update(snapshot_id=snap.id, name='py-snap-2'))
step('volumes.revert_to_last_snapshot', lambda: cloud.volumes.revert_to_last_snapshot(volume_id=vol.id))
vol2 = step('volumes.create_and_poll(snapshot)', lambda: cloud.volumes.create_and_poll(name='py-from-snap', source='snapshot', snapshot_id=snap.id))
step('volume_snapshots.delete_and_poll', lambda: cloud.volume_snapshots.delete_and_poll(snapshot_id=snap.id))
bootvol = step('volumes.create_and_poll(image)', lambda: cloud.volumes.create_and_poll(name='py-boot', size=10, source='image', image_id=ubuntu))
img = step('images.create_from_volume_and_poll', lambda: cloud.instances.images.create_from_volume_and_poll(name='py-image', volume_id=bootvol.id))
step('images.update', lambda: cloud.instances.images.update(image_id=img.id, name='py-image-2'))
up = step('images.upload_and_poll', lambda: cloud.instances.images.upload_and_poll(name='py-upload', url='https://example.org/images/debian.qcow2'))
step('images.list', lambda: cloud.instances.images.list())
step('images.delete_and_poll', lambda: cloud.instances.images.delete_and_poll(image_id=up.id))
step('instances.flavors.list', lambda: cloud.instances.flavors.list())
cluster = step('k8s.clusters.create_and_poll', lambda: cloud.k8s.clusters.create_and_poll(name='pyk8s', keypair='py-key', version='v1.30.8', pools=[{'name': 'pool-1', 'flavor_id': 'g1-standard-2-4', 'min_node_count': 1, 'max_node_count': 3}]))
step('k8s.clusters.update_and_poll', lambda: cloud.k8s.clusters.update_and_poll(cluster_name='pyk8s', autoscaler_config={'scan-interval': '10s'}))
step('k8s.clusters.upgrade_and_poll', lambda: cloud.k8s.clusters.upgrade_and_poll(cluster_name='pyk8s', version='v1.31.4'))
step('k8s.clusters.kubeconfig.get', lambda: cloud.k8s.clusters.kubeconfig.get(cluster_name='pyk8s'))
step('k8s.clusters.get_certificate', lambda: cloud.k8s.clusters.get_certificate(cluster_name='pyk8s'))
step('k8s.clusters.pools.create_and_poll', lambda: cloud.k8s.clusters.pools.create_and_poll(cluster_name='pyk8s', name='pool-2', flavor_id='g1-standard-1-2', min_node_count=1, max_node_count=2))
step('k8s.clusters.pools.resize_and_poll', lambda: cloud.k8s.clusters.pools.resize_and_poll(cluster_name='pyk8s', pool_name='pool-2', node_count=2))
step('k8s.clusters.pools.update', lambda: cloud.k8s.clusters.pools.update(cluster_name='pyk8s', pool_name='pool-2', labels={'a': 'b'}))
step('k8s.clusters.pools.check_quota', lambda: cloud.k8s.clusters.pools.check_quota(flavor_id='g1-standard-2-4', node_count=1))
nodes = step('k8s.clusters.nodes.list', lambda: cloud.k8s.clusters.nodes.list(cluster_name='pyk8s'))
step('k8s.clusters.pools.nodes.list', lambda: cloud.k8s.clusters.pools.nodes.list(cluster_name='pyk8s', pool_name='pool-2'))
step('k8s.clusters.pools.delete_and_poll', lambda: cloud.k8s.clusters.pools.delete_and_poll(cluster_name='pyk8s', pool_name='pool-2'))
step('k8s.flavors.list', lambda: cloud.k8s.flavors.list())
step('k8s.list_versions', lambda: cloud.k8s.list_versions())
step('k8s.clusters.delete_and_poll', lambda: cloud.k8s.clusters.delete_and_poll(cluster_name='pyk8s'))
step('floating_ips.delete_and_poll', lambda: cloud.floating_ips.delete_and_poll(floating_ip_id=fip.id))
step('instances.delete_and_poll', lambda: cloud.instances.delete_and_poll(instance_id=vm.id))
step('volumes.delete_and_poll', lambda: cloud.volumes.delete_and_poll(volume_id=vol.id))
step('security_groups.delete', lambda: cloud.security_groups.delete(group_id=sg.id))
step('networks.delete_and_poll', lambda: cloud.networks.delete_and_poll(network_id=net.id))
step('quotas.get_all', lambda: cloud.quotas.get_all())
me = httpx.get(f'{BASE}/iam/clients/me', headers={'Authorization': f'APIKey {KEY}'}).json()
step('quotas.get_global', lambda: cloud.quotas.get_global(client_id=me['id']))
step('ssh_keys.delete', lambda: cloud.ssh_keys.delete(ssh_key_id=key.id))
for n, r in results: print(f'{r[:4]:4} {n}' + ('' if r == 'ok' else f'  -> {r}'))
print(sum(1 for _, r in results if r == 'ok'), 'ok of', len(results))
sys.exit(0 if all(r == 'ok' for _, r in results) else 1)
