; NSIS script: a per-user installer for the bundle in dist\dp-workbench (built by PyInstaller with
; packaging\dp_workbench.spec). No administrator rights are needed: it installs into the user's
; %LOCALAPPDATA%\Programs\DP Workbench, adds Start-menu entries and an uninstaller (in Settings > Apps).
; Installing over an older build first runs that build's uninstaller, so that no file of it stays.
; The uninstaller removes exactly the files the installer wrote (the list is made from the bundle when the
; installer is built: uninstall_list.py) and the Start-menu entries; the ledger (%LOCALAPPDATA%\dp-workbench)
; and the settings (HKCU\Software\DP Workbench) are the user's, and stay.
;   python packaging\windows\uninstall_list.py dist\dp-workbench build\uninstall-files.nsh
;   makensis -DAppVersion=0.1.0 -DFileList=..\..\build\uninstall-files.nsh packaging\windows\dp-workbench.nsi
;     -> dist\dp-workbench-0.1.0-windows-x64-setup.exe
; Built and tried under Wine by packaging/windows/build_under_wine.sh (Debian's makensis), and on Windows by
; .github/workflows/installers.yml. Relative paths are from this file's folder. Options (-D):
;   AppVersion  the version shown and in the file name (default 0.0.0)
;   FileList    the uninstaller's list of files (required)
;   Dist        the bundle's folder (default ..\..\dist\dp-workbench)
;   OutFile     the installer (default ..\..\dist\dp-workbench-VERSION-windows-x64-setup.exe)
;   Compressor  lzma (default: the smallest download), zlib (quick, for a test build) or none (stored as they
;               are, in seconds: the older build a test upgrades from)

!ifndef AppVersion
  !define AppVersion "0.0.0"
!endif
!ifndef FileList
  !error "-DFileList=... is required: the uninstaller's list of files, written by uninstall_list.py"
!endif
!ifndef Dist
  !define Dist "..\..\dist\dp-workbench"
!endif
!ifndef OutFile
  !define OutFile "..\..\dist\dp-workbench-${AppVersion}-windows-x64-setup.exe"
!endif
!ifndef Compressor
  !define Compressor "lzma"
!endif
!define AppName "DP Workbench"
!define UninstallKey "Software\Microsoft\Windows\CurrentVersion\Uninstall\DP Workbench"

; A 64-bit installer (the program is 64-bit only) where makensis has the 64-bit stubs (Debian's has; the download
; for Windows has only 32-bit ones, and a 32-bit installer installs the same files the same way).
!if "${Compressor}" == "none"
  !define Stub "zlib"  ; the stub makensis takes for files stored as they are
!else
  !define Stub "${Compressor}_solid"
!endif
!if /FileExists "${NSISDIR}\Stubs\${Stub}-amd64-unicode"
  Target amd64-unicode
!else
  Unicode true
!endif
!if "${Compressor}" == "none"
  SetCompress off
!else
  SetCompressor /SOLID ${Compressor}
!endif
!if "${Compressor}" == "lzma"
  SetCompressorDictSize 64
!endif

Name "${AppName}"
OutFile "${OutFile}"
InstallDir "$LOCALAPPDATA\Programs\${AppName}"
InstallDirRegKey HKCU "${UninstallKey}" "InstallLocation"
RequestExecutionLevel user
ManifestDPIAware true
Icon "..\dp-workbench.ico"
UninstallIcon "..\dp-workbench.ico"
BrandingText "${AppName} ${AppVersion}"

!include "MUI2.nsh"
!define MUI_ICON "..\dp-workbench.ico"
!define MUI_UNICON "..\dp-workbench.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\dp-workbench-gui.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${AppName}"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "${AppName}"
  SetShellVarContext current
  ; an older build, wherever it was installed: its own uninstaller removes its files (and keeps the user's data)
  ReadRegStr $0 HKCU "${UninstallKey}" "InstallLocation"
  StrCmp $0 "" fresh
  IfFileExists "$0\uninstall.exe" 0 fresh
    DetailPrint "Removing the installed build from $0"
    ExecWait '"$0\uninstall.exe" /S _?=$0' $1  ; _?= runs it in place and waits for it
    Delete "$0\uninstall.exe"  ; in place, it cannot remove itself
    RMDir "$0"
  fresh:

  SetOutPath "$INSTDIR"
  File /r "${Dist}\*.*"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${AppName}.lnk" "$INSTDIR\dp-workbench-gui.exe" "" "$INSTDIR\dp-workbench-gui.exe" 0 \
    SW_SHOWNORMAL "" "Differentially private releases of tables, offline"
  CreateShortcut "$SMPROGRAMS\${AppName} sample dataset.lnk" "$INSTDIR\dp-workbench-gui.exe" \
    '"$INSTDIR\sample\household_survey.csv"' "$INSTDIR\dp-workbench-gui.exe" 0

  WriteRegStr HKCU "${UninstallKey}" "DisplayName" "${AppName}"
  WriteRegStr HKCU "${UninstallKey}" "DisplayVersion" "${AppVersion}"
  WriteRegStr HKCU "${UninstallKey}" "Publisher" "DP Workbench developers"
  WriteRegStr HKCU "${UninstallKey}" "DisplayIcon" "$INSTDIR\dp-workbench-gui.exe"
  WriteRegStr HKCU "${UninstallKey}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UninstallKey}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UninstallKey}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UninstallKey}" "NoModify" 1
  WriteRegDWORD HKCU "${UninstallKey}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  !include "${FileList}"  ; Delete of every installed file, then RMDir of every folder, deepest first
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"  ; only if empty: whatever the user put there stays
  Delete "$SMPROGRAMS\${AppName}.lnk"
  Delete "$SMPROGRAMS\${AppName} sample dataset.lnk"
  DeleteRegKey HKCU "${UninstallKey}"
SectionEnd
