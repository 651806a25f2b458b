Option Explicit

Sub Main()
    Print "new"
    Print "more"
End Sub
