import { describe, expect, it } from 'vitest';
import { installModeSet, unsupportedTargets } from './installmodes.ts';

const modes = (own: boolean, single: boolean, multi: boolean, all: boolean) =>
  installModeSet([
    { type: 'OwnNamespace', supported: own },
    { type: 'SingleNamespace', supported: single },
    { type: 'MultiNamespace', supported: multi },
    { type: 'AllNamespaces', supported: all },
  ]);

// operator-framework/api InstallModeSet.Supports and its table (clusterserviceversion_test.go TestInstallModeSetSupports).
describe('install modes', () => {
  it.each([
    { set: modes(true, true, true, true), targets: [], want: 'operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces' },
    { set: modes(false, true, true, true), targets: ['operators'], want: 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace' },
    { set: modes(true, true, true, false), targets: [''], want: 'AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces' },
    { set: modes(true, false, true, true), targets: ['other'], want: 'SingleNamespace InstallModeType not supported, cannot configure to watch one namespace' },
    { set: modes(true, true, false, true), targets: ['a', 'b'], want: 'MultiNamespace InstallModeType not supported, cannot configure to watch 2 namespaces' },
    { set: modes(false, true, true, true), targets: ['a', 'operators'], want: 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace' },
    { set: modes(true, true, true, true), targets: ['a', ''], want: 'operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1' },
    { set: modes(true, true, true, true), targets: ['a', 'b'], want: undefined },
    { set: modes(true, false, false, false), targets: ['operators'], want: undefined },
  ])('$targets → $want', ({ set, targets, want }) => {
    expect(unsupportedTargets(set, 'operators', targets)).toBe(want);
  });

  it('a type listed twice is refused with Go’s %v of the list', () => {
    expect(() =>
      installModeSet([
        { type: 'OwnNamespace', supported: true },
        { type: 'OwnNamespace', supported: false },
      ]),
    ).toThrow('InstallMode list contains duplicates, cannot make set: [{OwnNamespace true} {OwnNamespace false}]');
  });
});
