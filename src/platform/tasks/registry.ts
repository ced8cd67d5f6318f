// The registry of task types: the engine looks a task's module up by its `task_type`.
import { AppError } from '../errors.js';
import type { TaskType } from './types.js';

export class TaskRegistry {
  private readonly types = new Map<string, TaskType>();

  constructor(types: TaskType[]) {
    for (const type of types) {
      if (this.types.has(type.type)) throw new Error(`task type ${type.type} registered twice`);
      this.types.set(type.type, type);
    }
  }

  /** Adds a task type after construction (before the engine starts: its loop claims only known types). */
  add(type: TaskType): void {
    if (this.types.has(type.type)) throw new Error(`task type ${type.type} registered twice`);
    this.types.set(type.type, type);
  }

  get(name: string): TaskType {
    const type = this.types.get(name);
    if (!type) throw new AppError('internal', `no task type ${name} is registered`);
    return type;
  }

  has(name: string): boolean {
    return this.types.has(name);
  }

  names(): string[] {
    return [...this.types.keys()].sort();
  }
}
