; Inno Setup script: a per-user installer for the bundle in dist\dp-workbench (built by PyInstaller with
; packaging\dp_workbench.spec). No administrator rights are needed: it installs into the user's
; Programs folder, adds a Start-menu entry and an uninstaller. The uninstaller removes the program
; folder only: the ledger (in %LOCALAPPDATA%\dp-workbench) and the settings are the user's, and stay.
;   iscc /DAppVersion=0.1.0 packaging\windows\dp-workbench.iss   -> dist\dp-workbench-0.1.0-windows-x64-setup.exe
; .github/workflows/installers.yml runs it on windows-latest (Inno Setup 6 is on GitHub's Windows image).

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif

[Setup]
AppId={{5B0F7C9E-6D2A-4E7B-9C1F-3A8D2E4B6F10}
AppName=DP Workbench
AppVersion={#AppVersion}
AppVerName=DP Workbench {#AppVersion}
AppPublisher=DP Workbench developers
DefaultDirName={autopf}\DP Workbench
DefaultGroupName=DP Workbench
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=dp-workbench-{#AppVersion}-windows-x64-setup
SetupIconFile=..\dp-workbench.ico
UninstallDisplayIcon={app}\dp-workbench-gui.exe
UninstallDisplayName=DP Workbench
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern

[Files]
Source: "..\..\dist\dp-workbench\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\DP Workbench"; Filename: "{app}\dp-workbench-gui.exe"; Comment: "Differentially private releases of tables, offline"
Name: "{autoprograms}\DP Workbench sample dataset"; Filename: "{app}\dp-workbench-gui.exe"; Parameters: """{app}\sample\household_survey.csv"""

[Run]
Filename: "{app}\dp-workbench-gui.exe"; Description: "Start DP Workbench"; Flags: nowait postinstall skipifsilent

; Nothing under [UninstallDelete]: what the app writes lives in the user's folders, not in {app}.
