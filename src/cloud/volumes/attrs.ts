// What a volume record holds besides its row: shared by volumes, instances (their volumes), snapshots,
// images (made from bootable volumes) and Kubernetes nodes (their boot volumes).

export interface VolumeAttrs {
  volume_type: string;
  bootable: boolean;
  is_root_volume: boolean;
  delete_on_termination: boolean;
  tags: Record<string, string>;
  attached_at: number | null;
  attachment_tag?: string | null;
  /** The image it was made from (directly, or through a snapshot). */
  image_id?: string | null;
  /** The Kubernetes cluster whose node it is the boot volume of. */
  cluster_id?: string | null;
}
