// A small standard library for `tsc --noLib` (bench case ts-signals-unchecked-index): only the
// global types the compiler requires and what @preact/signals-core's src/index.ts uses (Symbol.for,
// Symbol.dispose, Object's reflection functions, arrays, errors, call/apply/bind). Written for
// this case (not taken from TypeScript's lib files, which cost tsc ~0.4 s a run to load).
interface Object {
	constructor: Function;
	toString(): string;
}
interface ObjectConstructor {
	readonly prototype: Object;
	create(o: object | null): any;
	defineProperty<T>(o: T, p: PropertyKey, attributes: PropertyDescriptor & ThisType<any>): T;
	getPrototypeOf(o: any): any;
	getOwnPropertyDescriptors<T>(o: T): { [P in keyof T]: TypedPropertyDescriptor<T[P]> } & { [x: string]: PropertyDescriptor };
}
declare var Object: ObjectConstructor;
interface Function {
	apply(this: Function, thisArg: any, argArray?: any): any;
	call(this: Function, thisArg: any, ...argArray: any[]): any;
	bind(this: Function, thisArg: any, ...argArray: any[]): any;
	readonly prototype: any;
}
interface CallableFunction extends Function {
	apply<T, A extends any[], R>(this: (this: T, ...args: A) => R, thisArg: T, args: A): R;
	call<T, A extends any[], R>(this: (this: T, ...args: A) => R, thisArg: T, ...args: A): R;
	bind<T, A extends any[], B extends any[], R>(this: (this: T, ...args: [...A, ...B]) => R, thisArg: T, ...args: A): (...args: B) => R;
}
interface NewableFunction extends Function {}
interface IArguments {
	[index: number]: any;
	length: number;
}
interface String {
	readonly length: number;
}
interface Number {}
interface Boolean {}
interface RegExp {}
interface Symbol {}
interface SymbolConstructor {
	for(key: string): symbol;
	readonly dispose: unique symbol;
}
declare var Symbol: SymbolConstructor;
interface ConcatArray<T> {
	readonly length: number;
	readonly [n: number]: T;
}
interface Array<T> {
	length: number;
	[n: number]: T;
	push(...items: T[]): number;
	concat(...items: (T | ConcatArray<T>)[]): T[];
	indexOf(searchElement: T, fromIndex?: number): number;
}
interface Error {
	name: string;
	message: string;
}
interface ErrorConstructor {
	new (message?: string): Error;
}
declare var Error: ErrorConstructor;
interface PropertyDescriptor {
	configurable?: boolean;
	enumerable?: boolean;
	value?: any;
	writable?: boolean;
	get?(): any;
	set?(v: any): void;
}
interface TypedPropertyDescriptor<T> {
	enumerable?: boolean;
	configurable?: boolean;
	writable?: boolean;
	value?: T;
	get?: () => T;
	set?: (value: T) => void;
}
type PropertyKey = string | number | symbol;
type Record<K extends keyof any, T> = { [P in K]: T };
interface ThisType<T> {}
